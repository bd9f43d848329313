import { beforeAll, describe, expect, it } from "vitest";
import { MlInputError } from "../../src/ml/errors";
import { applyFeaturizer } from "../../src/ml/featurize";
import type { UnsupervisedModel } from "../../src/ml/fit/contract";
import type { Frame } from "../../src/ml/frame";
import { Rng } from "../../src/ml/random";
import { buildRepresentation, type Representation } from "../../src/ml/representation/representation";
import { embed, standardize, standardSpace } from "../../src/ml/space/space";
import { chooseKind, parseSearchIndex, type SearchParams, searchIndex, trainSearchSteps } from "../../src/ml/unsupervised/search";
import { createSession, runFeatures } from "./helpers/ort-node";

/** An id column (strings), a numeric with missing values, a category, a boolean. */
function frame(n: number, seed: number): Frame {
  const rng = new Rng(seed);
  return {
    rowCount: n,
    columns: [
      {
        name: "id",
        kind: "id",
        storage: "dictionary",
        codes: Int32Array.from({ length: n }, (_, i) => i),
        dictionary: Array.from({ length: n }, (_, i) => `r${i}`),
      },
      { name: "x", kind: "numeric", storage: "numeric", values: Float64Array.from({ length: n }, () => (rng.next() < 0.1 ? NaN : rng.next() * 50)) },
      {
        name: "c",
        kind: "categorical",
        storage: "dictionary",
        codes: Int32Array.from({ length: n }, () => rng.int(4)),
        dictionary: ["a", "b", "c", "d"],
      },
      { name: "f", kind: "boolean", storage: "numeric", values: Float64Array.from({ length: n }, () => (rng.next() < 0.4 ? 1 : 0)) },
    ],
  };
}

function train(f: Frame, rep: Representation, params: SearchParams): UnsupervisedModel {
  const steps = trainSearchSteps(f, { representation: rep, params });
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

describe("search model", () => {
  const data = frame(500, 1);
  let rep: Representation;
  beforeAll(() => {
    rep = buildRepresentation(data);
  });

  it("describes itself in head and summary and ships index.bin", () => {
    const model = train(data, rep, { space: "embedding" });
    expect(model.modelType).toBe("search");
    expect(model.head).toEqual({ k: 10, space: "embedding", index: "exact", dims: 16, rows: 500 });
    expect(model.metrics).toEqual({});
    expect(model.summary).toMatchObject({ index: "exact", rows: 500, dims: 16, recall_at_10: null, encoder: "shared" });
    expect(model.files?.map((f) => f.name)).toEqual(["index.bin"]);
    expect(model.summary.index_bytes).toBe(model.files![0].bytes.length);
  });

  it("ONNX vectors equal the engine's embedding, and a training row finds itself first", async () => {
    const model = train(data, rep, { k: 3, space: "embedding" });
    const queries = frame(40, 2);
    const m = applyFeaturizer(model.featurizer, queries);
    const out = await runFeatures(await createSession(model.onnx), m.data, m.numRows, m.numFeatures);
    const vectors = out.vectors.data as Float64Array;
    expect(out.vectors.dims).toEqual([40, 16]);
    expect(maxAbsDiff(vectors, embed(rep.encoder!, m))).toBeLessThan(1e-5);

    const index = parseSearchIndex(model.files![0].bytes);
    const own = applyFeaturizer(model.featurizer, data);
    const self = embed(rep.encoder!, own).subarray(7 * 16, 8 * 16);
    const r = searchIndex(index, Float64Array.from(self), 1, 3);
    expect(r.ids[0][0]).toBe("r7");
    expect(r.distances[0][0]).toBeLessThan(1e-5);
    expect(r.distances[0]).toEqual([...r.distances[0]].sort((a, b) => a - b));
  });

  it("searches the standardized features with space features", async () => {
    const model = train(data, rep, { space: "features", k: 5 });
    const space = standardSpace(rep);
    expect(model.head).toMatchObject({ space: "features", dims: space.D, k: 5 });
    const m = applyFeaturizer(model.featurizer, frame(30, 3));
    const out = await runFeatures(await createSession(model.onnx), m.data, m.numRows, m.numFeatures);
    expect(maxAbsDiff(out.vectors.data as Float64Array, standardize(space, m))).toBeLessThan(1e-12);
  });

  it("chooses the space by default, says why in the summary, and builds the index in it", () => {
    const model = train(data, rep, {});
    const choice = model.summary.space_choice as Record<string, any>;
    // x, c and f are independent: neither space predicts a held-out column, a tie goes to the features
    expect(choice).toMatchObject({ chosen: "features", held_out_columns: ["x", "c", "f"], query_rows: 300, pool_rows: 500, k: 10 });
    expect(Object.keys(choice.neighbour_scores)).toEqual(["embedding", "features"]);
    expect(choice.rule).toMatch(/embedding only when ahead by more than 3 standard errors/);
    expect(model.head).toMatchObject({ space: "features", dims: standardSpace(rep).D });
    expect(model.summary.space).toBe("features");
    expect(model.summary.encoder).toBeUndefined();
    // a space the user fixes is not scored
    expect(train(data, rep, { space: "embedding" }).summary.space_choice).toBeUndefined();
  });

  it("builds an ivf index on request, with its measured recall", () => {
    const model = train(data, rep, { index: "ivf" });
    expect(model.head.index).toBe("ivf");
    expect(model.summary.nprobe).toBeGreaterThanOrEqual(1);
    expect(model.summary.recall_at_10).toBeGreaterThan(0.5);
  });

  it("is deterministic: same data and seed, same ONNX, head and index bytes", () => {
    const a = train(data, rep, { index: "ivf", seed: 4 });
    const b = train(data, rep, { index: "ivf", seed: 4 });
    expect(b.onnx).toEqual(a.onnx);
    expect(b.head).toEqual(a.head);
    expect(b.files![0].bytes).toEqual(a.files![0].bytes);
  });

  it("chooses exact while the index fits 32 MB, ivf above, and refuses more than 48 MB", () => {
    expect(chooseKind("auto", 400_000, 16, 1_600_000)).toBe("exact");
    expect(chooseKind("auto", 1_000_000, 16, 4_000_000)).toBe("ivf");
    expect(() => chooseKind("exact", 1_000_000, 16, 4_000_000)).toThrow(/use index "ivf"/);
    expect(() => chooseKind("auto", 1_000_000, 64, 4_000_000)).toThrow(MlInputError);
  });

  it("refuses k outside 1..100", () => {
    expect(() => train(data, rep, { k: 0 })).toThrow(MlInputError);
  });
});
