import { beforeAll, describe, expect, it } from "vitest";
import { applyFeaturizer } from "../../src/ml/featurize";
import type { Frame } from "../../src/ml/frame";
import { GraphBuilder } from "../../src/ml/onnx/graph";
import { DataType } from "../../src/ml/onnx/onnx-proto";
import { Rng } from "../../src/ml/random";
import { buildRepresentation, type Representation } from "../../src/ml/representation/representation";
import {
  addEmbeddingStage,
  addFeaturesInput,
  addReconstructionErrorStage,
  addStandardizeStage,
  embed,
  encoderFor,
  standardize,
  standardSpace,
} from "../../src/ml/space/space";
import { reconstructionErrors } from "../../src/ml/ssl/encoder";
import { createSession, runFeatures } from "./helpers/ort-node";

/** Numeric with missing values, a 3-level category, a 40-level category (has an "other" slot), a boolean. */
function frame(n: number, seed: number): Frame {
  const rng = new Rng(seed);
  const x = Float64Array.from({ length: n }, () => (rng.next() < 0.1 ? NaN : rng.next() * 100 - 30));
  const small = Int32Array.from({ length: n }, () => (rng.next() < 0.05 ? -1 : rng.int(3)));
  const wide = Int32Array.from({ length: n }, () => rng.int(40));
  const flag = Float64Array.from({ length: n }, () => (rng.next() < 0.3 ? 1 : 0));
  return {
    rowCount: n,
    columns: [
      { name: "x", kind: "numeric", storage: "numeric", values: x },
      { name: "small", kind: "categorical", storage: "dictionary", codes: small, dictionary: ["a", "b", "c"] },
      { name: "wide", kind: "categorical", storage: "dictionary", codes: wide, dictionary: Array.from({ length: 40 }, (_, i) => `w${i}`) },
      { name: "flag", kind: "boolean", storage: "numeric", values: flag },
    ],
  };
}

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

describe("space ONNX stages", () => {
  let rep: Representation;
  beforeAll(() => {
    rep = buildRepresentation(frame(400, 1));
  });

  it("names the standardized columns (one-hot levels and the other slot)", () => {
    const space = standardSpace(rep);
    expect(space.columnNames[0]).toBe("x");
    expect(space.columnNames).toContain("small=a");
    expect(space.columnNames).toContain("wide=(other)");
    expect(space.D).toBe(space.columnNames.length);
  });

  it("restricts the space to input_columns", () => {
    const space = standardSpace(rep, ["x", "flag"]);
    expect(space.columnNames).toEqual(["x", "flag"]);
  });

  it("equals the engine for the standardized space, the embedding and the reconstruction error", async () => {
    const space = standardSpace(rep);
    const encoder = encoderFor(frame(1, 0), rep, space).next().value;
    if (!encoder || !("weights" in encoder)) throw new Error("expected the shared encoder without training");
    const g = new GraphBuilder();
    const x = addFeaturesInput(g, space.featurizer.features.length);
    g.output(addStandardizeStage(g, space, x), "standardized", DataType.DOUBLE, ["N", space.D]);
    g.output(addEmbeddingStage(g, encoder, x), "embedding", DataType.DOUBLE, ["N", encoder.embedding]);
    g.output(addReconstructionErrorStage(g, encoder, x), "error", DataType.DOUBLE, ["N"]);
    const session = await createSession(g.finish({ name: "space", docString: "test", metadata: {} }));
    // unseen rows, including a category the featurizer never saw (NaN) and an all-missing row
    const test = frame(60, 2);
    (test.columns[1] as { dictionary: string[] }).dictionary = ["a", "zzz", "c"];
    (test.columns[0] as { values: Float64Array }).values[5] = NaN;
    const m = applyFeaturizer(space.featurizer, test);
    const out = await runFeatures(session, m.data, m.numRows, m.numFeatures);
    expect(maxAbsDiff(out.standardized.data as Float64Array, standardize(space, m))).toBeLessThan(1e-12);
    expect(maxAbsDiff(out.embedding.data as Float64Array, embed(encoder, m))).toBeLessThan(1e-9);
    expect(maxAbsDiff(out.error.data as Float64Array, reconstructionErrors(encoder, m.data, m.numRows))).toBeLessThan(1e-9);
  });

  it("trains an encoder of its own for other dimensions, deterministically", () => {
    const f = frame(400, 1);
    const space = standardSpace(rep);
    const drive = () => {
      const steps = encoderFor(f, rep, space, { dimensions: 4, seed: 7 });
      let n = 0;
      for (;;) {
        const r = steps.next();
        if (r.done) return { encoder: r.value, n };
        expect(r.value.phase).toBe("ssl");
        n++;
      }
    };
    const a = drive();
    expect(a.n).toBeGreaterThan(0);
    expect(a.encoder.embedding).toBe(4);
    expect(drive().encoder.weights).toBe(a.encoder.weights);
  });
});
