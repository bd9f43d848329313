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
    expect(a.representation).toEqual(buildRepresentation(frame));
  });
});
