import { describe, expect, it } from "vitest";
import type { Frame } from "../../src/ml/frame";
import { trainPredictionModel } from "../../src/ml/prediction/train";
import { Rng } from "../../src/ml/random";
import { buildRepresentation } from "../../src/ml/representation/representation";

describe("shared representation", () => {
  it("does not depend on the seed of the model that builds it (even above the 200k-row bin sample)", () => {
    const n = 200_500; // bins are placed on a seeded 200k-row sample above 200k rows
    const rng = new Rng(5);
    const x = Float64Array.from({ length: n }, () => rng.next());
    const y = Float64Array.from(x, (v) => 2 * v + 0.1 * rng.next());
    const frame: Frame = {
      rowCount: n,
      columns: [
        { name: "x", kind: "numeric", storage: "numeric", values: x },
        { name: "y", kind: "numeric", storage: "numeric", values: y },
      ],
    };
    const params = { max_rounds: 1, num_leaves: 2, validation_fraction: 0 };
    const a = trainPredictionModel(frame, { labelColumn: "y", params: { ...params, seed: 1 } });
    const b = trainPredictionModel(frame, { labelColumn: "y", params: { ...params, seed: 2 } });
    expect(b.representation.bins).toEqual(a.representation.bins);
    expect(a.representation).toEqual(buildRepresentation(frame, { encoder: false }));
  });
});

describe("a prediction model and the representation's encoder", () => {
  it("is the same on a representation with the encoder as without it (it never reads it)", () => {
    const n = 400;
    const rng = new Rng(8);
    const x = Float64Array.from({ length: n }, () => rng.next());
    const z = Float64Array.from({ length: n }, () => rng.next());
    const y = Float64Array.from(x, (v, i) => Math.sin(5 * v) + z[i] + 0.2 * rng.next());
    const col = (name: string, values: Float64Array) => ({ name, kind: "numeric" as const, storage: "numeric" as const, values });
    const frame: Frame = { rowCount: n, columns: [col("x", x), col("z", z), col("y", y)] };
    const params = { max_trials: 3 };
    const bare = trainPredictionModel(frame, { labelColumn: "y", params });
    expect(bare.representation.encoder).toBeNull();
    const withEncoder = buildRepresentation(frame);
    expect(withEncoder.encoder).not.toBeNull();
    const whole = trainPredictionModel(frame, { labelColumn: "y", params, representation: withEncoder });
    expect(bare.model).toEqual(whole.model);
    expect(bare.featurizer).toEqual(whole.featurizer);
    expect(JSON.stringify(bare.metrics)).toBe(JSON.stringify(whole.metrics));
    // the trials' parameters and scores (not their seconds)
    const trials = (r: typeof whole) => r.search?.trials.map(({ seconds: _, ...t }) => t);
    expect(trials(bare)).toEqual(trials(whole));
  });
});
