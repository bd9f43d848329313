/**
 * The CATE learners side by side in one run: per benchmark (./benchmarks: IHDP's 10 replications,
 * Nie & Wager's setups A–D; ./data's setups), the engine trained with each fixed learner (T, S,
 * X, DR) and with `learner: "auto"` on the same data, same seeds, same nuisance models:
 *
 *   npx tsx bench/causal/learners.ts [--quick]
 *
 * Reports per benchmark and learner: √PEHE (RMSE of the served per-row effect against the true
 * one, over the training rows: "within-sample" in Shalit et al.'s terms), the error of the
 * average effect |mean τ̂ − mean τ| of the served CATE, and the auto mix served; per benchmark the
 * AIPW estimate's error and how often its 95% interval covers the sample average of the true
 * effects (the interval is the same whatever the learner).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { predictCausal, trainCausalSteps } from "../../src/ml/causal/model";
import type { Frame } from "../../src/ml/frame";
import { buildRepresentation } from "../../src/ml/representation/representation";
import { type Benchmark, ihdp, nieWager } from "./benchmarks";
import { causalData } from "./data";

const quick = process.argv.includes("--quick");
const LEARNERS = ["t", "s", "x", "dr", "auto"] as const;

interface Suite {
  name: string;
  reps: number;
  make: (rep: number) => Benchmark;
}

// IHDP's replications are not kept in the repository (their source has no licence): the suite
// runs when ./ihdp/ holds them (see ./benchmarks.ts for where they come from)
const hasIhdp = existsSync(join(import.meta.dirname, "ihdp", "ihdp_npci_1.csv.gz"));
if (!hasIhdp) console.log("IHDP skipped: bench/causal/ihdp/ihdp_npci_{1..10}.csv.gz not present");
const SUITES: Suite[] = [
  ...(hasIhdp ? [{ name: "IHDP (NPCI surface B), 747 rows", reps: quick ? 3 : 10, make: (r: number) => ihdp(r + 1) }] : []),
  ...(["A", "B", "C", "D"] as const).map((s) => ({
    name: `Nie & Wager ${s}, 1000 rows`,
    reps: quick ? 2 : 5,
    make: (r: number) => nieWager(s, 1000, 100 + r),
  })),
  {
    name: "./data poor overlap (confounding 3), 2000 rows",
    reps: quick ? 2 : 5,
    make: (r) => {
      const d = causalData({ n: 2000, seed: 2000 + r, effect: 1, heterogeneity: 1, confounding: 3 });
      return { frame: d.frame, tau: d.tau };
    },
  },
];

function train(frame: Frame, learner: (typeof LEARNERS)[number]) {
  const gen = trainCausalSteps(frame, {
    representation: buildRepresentation(frame),
    labelColumn: "y",
    params: { learner, action_column: "treated" },
  });
  const t0 = performance.now();
  for (;;) {
    const r = gen.next();
    if (r.done) return { model: r.value, seconds: (performance.now() - t0) / 1000 };
  }
}

const mean = (xs: number[]) => xs.reduce((s, v) => s + v, 0) / xs.length;
const se = (xs: number[]) => (xs.length > 1 ? Math.sqrt(xs.reduce((s, v) => s + (v - mean(xs)) ** 2, 0) / (xs.length - 1) / xs.length) : NaN);
const pm = (xs: number[], d = 2) => `${mean(xs).toFixed(d)} ± ${se(xs).toFixed(d)}`;

console.log(
  "| benchmark | reps | √PEHE: T / S / X / DR / auto | ATE error of the CATE mean: T / S / X / DR / auto | auto ≤ best fixed (reps) | auto mixes served | AIPW ATE error | AIPW 95% coverage | fit s (auto) |",
);
console.log("|---|---|---|---|---|---|---|---|---|");
for (const suite of SUITES) {
  const peheBy = new Map<string, number[]>(LEARNERS.map((l) => [l, []]));
  const ateBy = new Map<string, number[]>(LEARNERS.map((l) => [l, []]));
  const aipwErr: number[] = [];
  const seconds: number[] = [];
  const mixes: string[] = [];
  let covered = 0;
  let autoBest = 0;
  for (let rep = 0; rep < suite.reps; rep++) {
    const b = suite.make(rep);
    const n = b.tau.length;
    const truth = mean([...b.tau]);
    const pehes: Record<string, number> = {};
    for (const l of LEARNERS) {
      const { model, seconds: s } = train(b.frame, l);
      const eff = predictCausal(model.predictor, b.frame).effect;
      let pe = 0;
      let sum = 0;
      for (let i = 0; i < n; i++) {
        pe += (eff[i] - b.tau[i]) ** 2;
        sum += eff[i];
      }
      pehes[l] = Math.sqrt(pe / n);
      peheBy.get(l)!.push(pehes[l]);
      ateBy.get(l)!.push(Math.abs(sum / n - truth));
      if (l === "auto") {
        const o = model.output as { ate: number; ci_low: number; ci_high: number; learner: { served: Record<string, number> } };
        aipwErr.push(Math.abs(o.ate - truth));
        if (o.ci_low <= truth && truth <= o.ci_high) covered++;
        seconds.push(s);
        mixes.push(
          Object.entries(o.learner.served)
            .map(([k, w]) => (w === 1 ? k : `${w}${k}`))
            .join("+"),
        );
      }
    }
    if (pehes.auto <= Math.min(pehes.t, pehes.s, pehes.x, pehes.dr)) autoBest++;
  }
  const row = (m: Map<string, number[]>) => LEARNERS.map((l) => pm(m.get(l)!)).join(" / ");
  const counts = [...new Set(mixes)].map((m) => `${m} ×${mixes.filter((x) => x === m).length}`).join(", ");
  console.log(
    `| ${suite.name} | ${suite.reps} | ${row(peheBy)} | ${row(ateBy)} | ${autoBest}/${suite.reps} | ${counts} | ${pm(aipwErr)} | ${(covered / suite.reps).toFixed(2)} | ${mean(seconds).toFixed(1)} |`,
  );
}
