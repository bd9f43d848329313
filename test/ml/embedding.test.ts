import { describe, expect, it } from "vitest";
import { applyFeaturizer } from "../../src/ml/featurize";
import type { UnsupervisedModel } from "../../src/ml/fit/contract";
import type { Frame } from "../../src/ml/frame";
import { Rng } from "../../src/ml/random";
import { buildRepresentation, type Representation } from "../../src/ml/representation/representation";
import { embed } from "../../src/ml/space/space";
import { trainEmbeddingSteps } from "../../src/ml/unsupervised/embedding";
import { createSession, runFeatures } from "./helpers/ort-node";

function frame(n: number): Frame {
  const rng = new Rng(5);
  return {
    rowCount: n,
    columns: [
      { name: "a", kind: "numeric", storage: "numeric", values: Float64Array.from({ length: n }, () => rng.next() * 10) },
      { name: "b", kind: "numeric", storage: "numeric", values: Float64Array.from({ length: n }, () => (rng.next() < 0.1 ? NaN : rng.next())) },
      {
        name: "c",
        kind: "categorical",
        storage: "dictionary",
        codes: Int32Array.from({ length: n }, () => rng.int(4)),
        dictionary: ["p", "q", "r", "s"],
      },
    ],
  };
}

// One representation per frame: it is deterministic (test/ml/prediction-representation.test.ts),
// and building it (its encoder) is most of a small model's time.
const reps = new WeakMap<Frame, Representation>();
const repOf = (f: Frame) => reps.get(f) ?? reps.set(f, buildRepresentation(f)).get(f)!;

function train(f: Frame, params: { dimensions?: number; seed?: number }): UnsupervisedModel {
  const steps = trainEmbeddingSteps(f, { representation: repOf(f), params });
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

describe("embedding model", () => {
  const f = frame(300);
  const rep = repOf(f);

  it("serves the shared encoder: the graph equals the engine's embedding", async () => {
    const steps = trainEmbeddingSteps(f, { representation: rep, params: {} });
    const r = steps.next();
    expect(r.done).toBe(true); // nothing to train: the representation's encoder is the model
    const model = r.value as UnsupervisedModel;
    expect(model.head).toEqual({ dimensions: 16 });
    const m = applyFeaturizer(model.featurizer, f);
    const out = await runFeatures(await createSession(model.onnx), m.data, m.numRows, m.numFeatures);
    const expected = embed(rep.encoder!, m);
    const got = out.embedding.data as Float64Array;
    let worst = 0;
    for (let i = 0; i < expected.length; i++) worst = Math.max(worst, Math.abs(got[i] - expected[i]));
    expect(worst).toBeLessThan(1e-9);
  });

  it("is byte-identical for the same data and seed, other dimensions included", () => {
    const a = train(f, { dimensions: 6, seed: 2 });
    const b = train(f, { dimensions: 6, seed: 2 });
    expect(a.head).toEqual({ dimensions: 6 });
    expect(Buffer.from(a.onnx).equals(Buffer.from(b.onnx))).toBe(true);
    expect(Buffer.from(train(f, {}).onnx).equals(Buffer.from(a.onnx))).toBe(false);
  });
});
