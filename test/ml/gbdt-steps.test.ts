import { describe, expect, it } from "vitest";
import { type IterationInfo, type TrainGbdtInput, type TrainGbdtResult, trainGbdt, trainGbdtSteps } from "../../src/ml/gbdt/train";
import { Rng } from "../../src/ml/random";

function problem(n = 1200): Omit<TrainGbdtInput, "params"> {
  const rng = new Rng(4);
  const data = Float32Array.from({ length: n * 3 }, () => rng.next());
  const label = Float64Array.from({ length: n }, (_, i) => (data[i * 3] + 0.5 * data[i * 3 + 1] > 0.75 ? 1 : 0));
  const rows = (a: number, b: number) => Int32Array.from({ length: b - a }, (_, i) => a + i);
  return { data, numRows: n, numFeatures: 3, categorical: [0, 0, 0], label, trainRows: rows(0, 1000), valRows: rows(1000, n) };
}

function drain(gen: Generator<IterationInfo, TrainGbdtResult, void>): { steps: IterationInfo[]; result: TrainGbdtResult } {
  const steps: IterationInfo[] = [];
  for (;;) {
    const r = gen.next();
    if (r.done) return { steps, result: r.value };
    steps.push(r.value);
  }
}

describe("trainGbdtSteps", () => {
  it("yields every round and returns the model the synchronous driver trains", () => {
    const input = { ...problem(), params: { objective: "binary" as const, maxRounds: 40, earlyStoppingRounds: 5 } };
    const { steps, result } = drain(trainGbdtSteps(input));
    const sync = trainGbdt(input);
    expect(result.model).toEqual(sync.model);
    expect(steps).toEqual(sync.history);
    expect(steps.map((s) => s.iteration)).toEqual(steps.map((_, i) => i + 1));
  });

  it("stops after the round during which a flag read by shouldStop was set", () => {
    let cancel = false;
    const gen = trainGbdtSteps({ ...problem(), params: { objective: "binary", maxRounds: 50 }, shouldStop: () => cancel });
    let r = gen.next();
    for (let i = 0; !r.done; i++, r = gen.next()) if (i === 2) cancel = true;
    expect(r.value.stopReason).toBe("cancelled");
    expect(r.value.history.length).toBe(3);
  });
});
