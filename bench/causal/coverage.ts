/**
 * Coverage of the AIPW 95% interval on the benchmarks with known effects (./benchmarks: Nie &
 * Wager A–D; ./data's poor-overlap setup), over many seeds: the interval does not depend on the
 * CATE learner, so each seed trains once with the fixed T-learner (no scoring fits).
 *
 *   npx tsx bench/causal/coverage.ts [seeds per setup, default 40] [first seed, default 700] [setups, default A,B,C,D,po]
 *
 * Per setup: the share of seeds whose interval covers the sample average of the true effects
 * (and the population average where it is known in closed form), the mean error, the mean
 * half-width, and sd of the estimates / mean std error (about 1 for a calibrated interval).
 */
import { trainCausalSteps } from "../../src/ml/causal/model";
import type { Frame } from "../../src/ml/frame";
import { buildRepresentation } from "../../src/ml/representation/representation";
import { type Benchmark, nieWager } from "./benchmarks";
import { causalData } from "./data";

const seeds = Number(process.argv[2] ?? 40);
const first = Number(process.argv[3] ?? 700);
const only = (process.argv[4] ?? "A,B,C,D,po").split(",");

/** Population ATEs in closed form (A: E[(x1 + x2)/2], x ~ U[0,1]; C: 1; D: (√3 − √2)/√(2π), x ~ N(0,1); poor overlap: 1). */
const SETUPS: { key: string; name: string; make: (seed: number) => Benchmark; population?: number }[] = [
  { key: "A", name: "Nie & Wager A, 1000 rows", make: (s) => nieWager("A", 1000, s), population: 0.5 },
  { key: "B", name: "Nie & Wager B, 1000 rows", make: (s) => nieWager("B", 1000, s) },
  { key: "C", name: "Nie & Wager C, 1000 rows", make: (s) => nieWager("C", 1000, s), population: 1 },
  {
    key: "D",
    name: "Nie & Wager D, 1000 rows",
    make: (s) => nieWager("D", 1000, s),
    population: (Math.sqrt(3) - Math.sqrt(2)) / Math.sqrt(2 * Math.PI),
  },
  {
    key: "po",
    name: "./data poor overlap (confounding 3), 2000 rows",
    make: (s) => {
      const d = causalData({ n: 2000, seed: 3000 + s, effect: 1, heterogeneity: 1, confounding: 3 });
      return { frame: d.frame, tau: d.tau };
    },
    population: 1,
  },
];

function estimate(frame: Frame) {
  const gen = trainCausalSteps(frame, {
    representation: buildRepresentation(frame),
    labelColumn: "y",
    params: { learner: "t", action_column: "treated" },
  });
  for (;;) {
    const r = gen.next();
    if (r.done) return r.value.output as { ate: number; std_error: number; ci_low: number; ci_high: number };
  }
}

const mean = (xs: number[]) => xs.reduce((s, v) => s + v, 0) / xs.length;
const sd = (xs: number[]) => Math.sqrt(xs.reduce((s, v) => s + (v - mean(xs)) ** 2, 0) / (xs.length - 1));

console.log(
  "| setup | seeds | coverage: sample ATE | coverage: population ATE | mean error (vs sample ATE) | mean CI half-width | sd of estimates / mean std error |",
);
console.log("|---|---|---|---|---|---|---|");
for (const s of SETUPS.filter((x) => only.includes(x.key))) {
  let coveredSample = 0;
  let coveredPopulation = 0;
  const errors: number[] = [];
  const estimates: number[] = [];
  const ses: number[] = [];
  for (let seed = first; seed < first + seeds; seed++) {
    const b = s.make(seed);
    const truth = mean([...b.tau]);
    const o = estimate(b.frame);
    if (o.ci_low <= truth && truth <= o.ci_high) coveredSample++;
    if (s.population !== undefined && o.ci_low <= s.population && s.population <= o.ci_high) coveredPopulation++;
    errors.push(o.ate - truth);
    estimates.push(o.ate);
    ses.push(o.std_error);
  }
  const pop = s.population === undefined ? "—" : (coveredPopulation / seeds).toFixed(2);
  console.log(
    `| ${s.name} | ${seeds} | ${(coveredSample / seeds).toFixed(2)} | ${pop} | ${mean(errors) >= 0 ? "+" : ""}${mean(errors).toFixed(3)} | ${(1.959964 * mean(ses)).toFixed(3)} | ${(sd(estimates) / mean(ses)).toFixed(2)} |`,
  );
}
