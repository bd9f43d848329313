/**
 * How much a served effect fit's √PEHE moves with its seed, against the same learner fit out of
 * fold on 4/5 of the rows (what the selection loss sees). Per replication of the poor-overlap
 * setup (or a Nie & Wager setup): the X, DR and S learners fit on all rows with the served seed
 * and two others, and fit per fold on the other folds' rows (labels from the cross-fitted
 * nuisance, as the served fit has them) and predicted on the fold. Needs ./capture-hook.patch:
 *
 *   git apply bench/causal/selection/capture-hook.patch
 *   npx tsx bench/causal/selection/seed-noise.ts <po|A|B|C|D> <first seed> <reps> <rows>
 *
 * Prints per learner "full <served seed>/<seed 2>/<seed 3> cf-oof <4/5 rows, out of fold>".
 */
import { predictRows } from "../../../src/ml/causal/fit";
import { armProblem } from "../../../src/ml/causal/learner-search";
import { fitLearner } from "../../../src/ml/causal/learners";
import { trainCausalSteps } from "../../../src/ml/causal/model";
import { buildRepresentation } from "../../../src/ml/representation/representation";
import { type Benchmark, type NieWagerSetup, nieWager } from "../benchmarks";
import { causalData } from "../data";

const [suite, startArg, repsArg, rowsArg] = process.argv.slice(2);
const rowCount = Number(rowsArg);
let captured: any = null;
(globalThis as any).__causalCapture = (v: unknown) => (captured = v);

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
  const p = armProblem(s, 1, s.cf, s.po.phi, s.weights);
  const rmse = (pred: Float64Array, at: Int32Array) => Math.sqrt(pred.reduce((acc, v, i) => acc + (v - b.tau[at[i]]) ** 2, 0) / pred.length);
  const out: string[] = [];
  for (const name of ["x", "dr", "s"] as const) {
    // the first seed is the one the served fit of treated arm 1 has (./learner-search fitServedEffects)
    const full = [0, 1, 2].map((k) => rmse(predictRows(run(fitLearner(name, p, rows, s.seed + 1299709 + 17 * k)), s.input.m, rows), rows));
    const oof = new Float64Array(rows.length);
    for (let f = 0; f < s.folds; f++) {
      const held = rows.filter((_: number, j: number) => fold[j] === f);
      const model = run(
        fitLearner(
          name,
          p,
          rows.filter((_: number, j: number) => fold[j] !== f),
          s.seed + 1009 * (f + 1),
        ),
      );
      const pred = predictRows(model, s.input.m, held);
      let i = 0;
      rows.forEach((_: number, j: number) => {
        if (fold[j] === f) oof[j] = pred[i++];
      });
    }
    out.push(`${name}: full ${full.map((v) => v.toFixed(3)).join("/")} cf-oof ${rmse(oof, rows).toFixed(3)}`);
  }
  console.log(suite, rep, out.join(" | "));
}
