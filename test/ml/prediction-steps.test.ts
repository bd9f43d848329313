import { describe, expect, it } from "vitest";
import type { Frame } from "../../src/ml/frame";
import type { PredictionModelResult } from "../../src/ml/prediction/model";
import { type TrainingStep, trainPredictionModel, trainPredictionModelSteps } from "../../src/ml/prediction/train";
import { Rng } from "../../src/ml/random";
import { buildRepresentation, lacksEncoder, parseRepresentation, plannedSslSteps } from "../../src/ml/representation/representation";

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
  // the one-model path's steps (the search's: prediction-search.test.ts)
  const opts = { labelColumn: "y", params: { max_rounds: 30, search: "off" as const } };

  it("gives the model the synchronous driver trains: one finetune step per round, no encoder trained for it", () => {
    const { steps, result } = drain(trainPredictionModelSteps(frame(), opts));
    const sync = trainPredictionModel(frame(), opts);
    expect(result.model).toEqual(sync.model);
    expect(result.representation).toEqual(sync.representation);
    expect(steps.every((s) => s.phase === "finetune")).toBe(true);
    expect(steps.map((s) => s.phase === "finetune" && s.iteration)).toEqual(sync.history.map((h) => h.iteration));
    // the representation it built has the layout the other types read, and no encoder yet
    expect(plannedSslSteps(frame())).toBeGreaterThan(0);
    expect(result.representation.layout).not.toBeNull();
    expect(lacksEncoder(result.representation)).toBe(true);
  });

  it("with a stored representation, its encoder trained or not: the same model", () => {
    const first = trainPredictionModel(frame(), opts);
    const cached = parseRepresentation(JSON.stringify(first.representation))!;
    const { result } = drain(trainPredictionModelSteps(frame(), { ...opts, representation: cached }));
    expect(result.model).toEqual(first.model);
    const withEncoder = buildRepresentation(frame());
    expect(withEncoder.encoder).not.toBeNull();
    expect(trainPredictionModel(frame(), { ...opts, representation: withEncoder }).model).toEqual(first.model);
  });

  it("reports an input error before building the representation", () => {
    const f = frame();
    const gen = trainPredictionModelSteps(f, { labelColumn: "y", inputColumns: [] });
    expect(() => gen.next()).toThrow(/no usable feature columns/);
  });
});
