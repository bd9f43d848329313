/**
 * Per-seed form of ./coverage.ts for one setup: prints each seed's estimate, error against the
 * sample ATE and whether the 95% interval covers it, then the running coverage, so a slow run on
 * a loaded machine still leaves usable partial figures.
 *
 *   npx tsx bench/causal/coverage-seeds.ts <A|B|C|D> [seeds, default 30] [first seed, default 700]
 */
import { trainCausalSteps } from "../../src/ml/causal/model";
import { buildRepresentation } from "../../src/ml/representation/representation";
import { nieWager } from "./benchmarks";

const setup = (process.argv[2] ?? "A") as "A" | "B" | "C" | "D";
const seeds = Number(process.argv[3] ?? 30);
const first = Number(process.argv[4] ?? 700);
let covered = 0;
let errorSum = 0;
let halfWidthSum = 0;
for (let i = 0; i < seeds; i++) {
  const b = nieWager(setup, 1000, first + i);
  const truth = b.tau.reduce((s, v) => s + v, 0) / b.tau.length;
  const gen = trainCausalSteps(b.frame, {
    representation: buildRepresentation(b.frame),
    labelColumn: "y",
    params: { learner: "t", action_column: "treated" },
  });
  let r = gen.next();
  while (!r.done) r = gen.next();
  const o = r.value.output as { ate: number; ci_low: number; ci_high: number };
  const hit = o.ci_low <= truth && truth <= o.ci_high;
  if (hit) covered++;
  errorSum += o.ate - truth;
  halfWidthSum += (o.ci_high - o.ci_low) / 2;
  const k = i + 1;
  console.log(
    `${setup} seed ${first + i}: error ${(o.ate - truth).toFixed(3)} ${hit ? "covered" : "MISSED"} | running ${covered}/${k} = ${(covered / k).toFixed(2)}, bias ${(errorSum / k).toFixed(3)}, half-width ${(halfWidthSum / k).toFixed(3)}`,
  );
}
