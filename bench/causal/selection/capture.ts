/**
 * Captures what a selection rule reads and what it would serve, per replication, so rules can be
 * compared offline (./rules.py) without retraining: the out-of-fold CATE of every candidate, the
 * cross-fitted φ, overlap weights, folds, μ and ê (from the automatic run), and every fixed
 * learner's served per-row effect (a blend's served effect is the same blend of these, since each
 * member is fit on all rows with the same seeds whatever the mix). Needs ./capture-hook.patch
 * applied (two hooks in src/ml/causal/learner-search.ts, not kept in the engine):
 *
 *   git apply bench/causal/selection/capture-hook.patch
 *   npx tsx bench/causal/selection/capture.ts <A|B|C|D|po|ihdp> <first seed or IHDP replication> <reps> <rows>
 *   python3 bench/causal/selection/rules.py '/tmp/cap/B-1000-*.json'
 *
 * Writes /tmp/cap/<suite>-<rows>-<seed>.json.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { predictCausal, trainCausalSteps } from "../../../src/ml/causal/model";
import type { Frame } from "../../../src/ml/frame";
import { buildRepresentation } from "../../../src/ml/representation/representation";
import { type Benchmark, ihdp, type NieWagerSetup, nieWager } from "../benchmarks";
import { causalData } from "../data";

const [suite, startArg, repsArg, rowsArg] = process.argv.slice(2);
const start = Number(startArg);
const reps = Number(repsArg);
const rows = Number(rowsArg);
let captured: any = null;
(globalThis as any).__causalCapture = (v: unknown) => (captured = v);
mkdirSync("/tmp/cap", { recursive: true });

function train(frame: Frame, learner: string) {
  const gen = trainCausalSteps(frame, {
    representation: buildRepresentation(frame),
    labelColumn: "y",
    params: { learner: learner as "auto", action_column: "treated" },
  });
  const t0 = performance.now();
  for (;;) {
    const r = gen.next();
    if (r.done) return { model: r.value, seconds: (performance.now() - t0) / 1000 };
  }
}

function make(rep: number): Benchmark {
  if (suite === "ihdp") return ihdp(rep);
  if (suite === "po") {
    const d = causalData({ n: rows, seed: rep, effect: 1, heterogeneity: 1, confounding: 3 });
    return { frame: d.frame, tau: d.tau };
  }
  return nieWager(suite as NieWagerSetup, rows, rep);
}

const column = (frame: Frame, name: string) => [...((frame.columns.find((c) => c.name === name) as any).values as Float64Array)];

for (let rep = start; rep < start + reps; rep++) {
  const b = make(rep);
  const out: any = { suite, rep, tau: [...b.tau], effects: {}, seconds: {} };
  for (const l of ["auto", "t", "s", "x", "dr"]) {
    const { model, seconds } = train(b.frame, l);
    out.effects[l] = [...predictCausal(model.predictor, b.frame).effect];
    out.seconds[l] = seconds;
    if (l !== "auto") continue;
    out.served = (model.output as any).learner.served;
    out.rows = [...captured.rows];
    out.fold = [...captured.fold];
    out.mu = [...captured.cf.mu];
    out.e = [...captured.cf.e];
    out.arms = captured.arms.map((a: any) => ({
      oof: Object.fromEntries([...a.oof].map(([k, v]: [string, Float64Array]) => [k, [...v]])),
      phi: [...a.phi],
      weight: [...a.weight],
    }));
    out.t = column(b.frame, "treated");
    out.y = column(b.frame, "y");
  }
  writeFileSync(`/tmp/cap/${suite}-${rows}-${rep}.json`, JSON.stringify(out));
  console.log(suite, rep, JSON.stringify(out.seconds), JSON.stringify(out.served));
}
