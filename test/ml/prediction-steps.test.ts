import { describe, expect, it } from "vitest";
import type { Frame } from "../../src/ml/frame";
import { Rng } from "../../src/ml/gbdt/random";
import { trainPredictionModel, trainPredictionModelSteps, type PredictionModelResult, type TrainingStep } from "../../src/ml/prediction";

function frame(n = 500): Frame {
  const rng = new Rng(9);
  const x = Float64Array.from({ length: n }, () => rng.next());
  const z = Float64Array.from({ length: n }, () => rng.next());
  const y = Float64Array.from({ length: n }, (_, i) => 3 * x[i] - z[i] + 0.1 * rng.next());
  return {
    rowCount: n,
    columns: [
      { name: "x", kind: "numeric", storage: "numeric", values: x },
      { name: "z", kind: "numeric", storage: "numeric", values: z },
      { name: "y", kind: "numeric", storage: "numeric", values: y },
    ],
  };
}

function drain(gen: Generator<TrainingStep, PredictionModelResult, void>): { steps: TrainingStep[]; result: PredictionModelResult } {
  const steps: TrainingStep[] = [];
  for (;;) {
    const r = gen.next();
    if (r.done) return { steps, result: r.value };
    steps.push(r.value);
  }
}

describe("trainPredictionModelSteps", () => {
  it("gives the model the synchronous driver trains, one finetune step per round", () => {
    const opts = { labelColumn: "y", params: { max_rounds: 30 } };
    const { steps, result } = drain(trainPredictionModelSteps(frame(), opts));
    const sync = trainPredictionModel(frame(), opts);
    expect(result.model).toEqual(sync.model);
    const finetune = steps.filter((s) => s.phase === "finetune");
    expect(finetune.map((s) => s.iteration)).toEqual(sync.history.map((h) => h.iteration));
  });
});
