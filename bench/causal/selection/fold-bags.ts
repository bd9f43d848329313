/**
 * Saves, per replication, each learner's "fold bag": the average over the folds of the candidate
 * fit the learner scoring makes without that fold (the same fits, labels and seeds as
 * src/ml/causal/learner-search.ts chooseLearner; T on a numeric outcome: the folds' outcome-model
 * differences), predicted on every row. ./overlap.py --bags serves the auto mix with these in
 * place of the members' fits on all rows. Needs ./capture-hook.patch:
 *
 *   git apply bench/causal/selection/capture-hook.patch
 *   npx tsx bench/causal/selection/fold-bags.ts <po|A|B|C|D> <first seed> <reps> <rows>
 *
 * Writes /tmp/capbag/<suite>-<rows>-<seed>.json (treated arm 1; every row included).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { overlapWeights, pseudoOutcomes } from "../../../src/ml/causal/aipw";
import { predictRows } from "../../../src/ml/causal/fit";
import { armProblem } from "../../../src/ml/causal/learner-search";
import { CANDIDATES, fitLearner } from "../../../src/ml/causal/learners";
import { trainCausalSteps } from "../../../src/ml/causal/model";
import { buildRepresentation } from "../../../src/ml/representation/representation";
import { type Benchmark, type NieWagerSetup, nieWager } from "../benchmarks";
import { causalData } from "../data";

const [suite, startArg, repsArg, rowsArg] = process.argv.slice(2);
const rowCount = Number(rowsArg);
let captured: any = null;
(globalThis as any).__causalCapture = (v: unknown) => (captured = v);
mkdirSync("/tmp/capbag", { recursive: true });

function run<T>(g: Generator<unknown, T, void>): T {
  for (;;) {
    const r = g.next();
    if (r.done) return r.value;
  }
}

function make(rep: number): Benchmark {
  if (suite !== "po") return nieWager(suite as NieWagerSetup, rowCount, rep);
  const d = causalData({ n: rowCount, seed: rep, effect: 1, heterogeneity: 1, confounding: 3 });
  return { frame: d.frame, tau: d.tau };
}

for (let rep = Number(startArg); rep < Number(startArg) + Number(repsArg); rep++) {
  const b = make(rep);
  run(
    trainCausalSteps(b.frame, {
      representation: buildRepresentation(b.frame),
      labelColumn: "y",
      params: { learner: "auto", action_column: "treated" },
    }),
  );
  const s = captured.s;
  const fold = captured.fold as Int32Array;
  const rows = s.rows as Int32Array;
  const n = rows.length;
  const bags: Record<string, Float64Array> = { t: new Float64Array(n), s: new Float64Array(n), x: new Float64Array(n), dr: new Float64Array(n) };
  for (let f = 0; f < s.folds; f++) {
    const nu = s.cf.byFold[f];
    const train = rows.filter((_: number, j: number) => fold[j] !== f);
    const p = armProblem(s, 1, nu, pseudoOutcomes(nu, s.y, s.arm, rows, s.K, s.clip).phi, overlapWeights(nu, s.K));
    for (let j = 0; j < n; j++) bags.t[j] += (nu.mu[j * s.K + 1] - nu.mu[j * s.K]) / s.folds;
    for (const name of ["s", "x", "dr"] as const) {
      const model = run(fitLearner(name, p, train, s.seed + 1009 * (f + 1) + 7 * CANDIDATES.indexOf(name)));
      const pred = predictRows(model, s.input.m, rows);
      for (let j = 0; j < n; j++) bags[name][j] += pred[j] / s.folds;
    }
  }
  const out = { suite, rep, rows: [...rows], bag: Object.fromEntries(Object.entries(bags).map(([k, v]) => [k, [...v]])) };
  writeFileSync(`/tmp/capbag/${suite}-${rowCount}-${rep}.json`, JSON.stringify(out));
  const rmse = (v: Float64Array) => Math.sqrt(v.reduce((acc, x, j) => acc + (x - b.tau[rows[j]]) ** 2, 0) / n).toFixed(3);
  console.log(
    suite,
    rep,
    Object.entries(bags)
      .map(([k, v]) => `${k} ${rmse(v)}`)
      .join(" "),
  );
}
