import { describe, expect, it } from "vitest";
import { applyFeaturizer, featureKinds } from "../../src/ml/featurize";
import type { Frame } from "../../src/ml/frame";
import { computeBins } from "../../src/ml/gbdt/bins";
import { Rng } from "../../src/ml/random";
import { buildRepresentation, plannedSslSteps, SAMPLE_ROWS } from "../../src/ml/representation/representation";

describe("the representation of a table above its row sample", () => {
  it("has the bins of the whole table's matrix, an encoder fitted on the sample and a profile of every row", () => {
    const n = SAMPLE_ROWS + 5000;
    const r = new Rng(11);
    const frame: Frame = {
      rowCount: n,
      columns: [
        { name: "x", kind: "numeric", storage: "numeric", values: Float64Array.from({ length: n }, (_, i) => (i % 50 === 0 ? NaN : r.next() ** 3)) },
        {
          name: "c",
          kind: "categorical",
          storage: "dictionary",
          codes: Int32Array.from({ length: n }, () => r.int(300)),
          dictionary: Array.from({ length: 300 }, (_, k) => `v${k}`),
        },
      ],
    };
    const rep = buildRepresentation(frame, { seed: 4 });
    const m = applyFeaturizer(rep.featurizer, frame);
    const isCat = featureKinds(rep.featurizer).map((k) => k.type === "categorical");
    expect(rep.bins).toEqual(computeBins(m.data, m.numRows, m.numFeatures, isCat, { seed: 4 }));
    const training = rep.encoder?.training;
    expect((training?.trainRows ?? 0) + (training?.valRows ?? 0)).toBe(SAMPLE_ROWS);
    expect(training?.steps).toBe(plannedSslSteps(frame));
    expect(rep.rowCount).toBe(n);
    expect(rep.profile[0].missing_count).toBe(Math.ceil(n / 50));
  });
});
