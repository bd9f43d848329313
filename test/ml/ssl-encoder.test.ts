import { describe, expect, it } from "vitest";
import { applyFeaturizer, buildFeaturizer } from "../../src/ml/featurize";
import type { Frame } from "../../src/ml/frame";
import { Rng } from "../../src/ml/random";
import { base64ToFloat32, float32ToBase64 } from "../../src/ml/ssl/base64";
import {
  parseEncoder,
  planEncoder,
  reconstructionErrors,
  SSL_EMBEDDING,
  type SslEncoder,
  type SslStep,
  trainEncoderSteps,
} from "../../src/ml/ssl/encoder";
import { encodeRows } from "./helpers/engine-scores";

/** Four numeric columns driven by two latent factors (+ a categorical one unless `numericOnly`). */
function correlated(n: number, opts: { numericOnly?: boolean; missing?: number; seed?: number } = {}): Frame {
  const rng = new Rng(opts.seed ?? 1);
  const gauss = () => Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
  const cols: number[][] = [[], [], [], []];
  const g: number[] = [];
  for (let i = 0; i < n; i++) {
    const u = gauss();
    const v = gauss();
    const x = [u + 0.1 * gauss(), u - v + 0.1 * gauss(), 2 * v + 0.1 * gauss(), u + v + 0.1 * gauss()];
    for (let j = 0; j < 4; j++) cols[j].push(rng.next() < (opts.missing ?? 0) ? NaN : x[j]);
    g.push(rng.next() < (opts.missing ?? 0) ? -1 : u > 0.5 ? 0 : u > -0.5 ? 1 : 2);
  }
  const columns: Frame["columns"] = cols.map((values, j) => ({
    name: `x${j}`,
    kind: "numeric",
    storage: "numeric",
    values: Float64Array.from(values),
  }));
  if (!opts.numericOnly)
    columns.push({ name: "g", kind: "categorical", storage: "dictionary", codes: Int32Array.from(g), dictionary: ["hi", "mid", "lo"] });
  return { rowCount: n, columns };
}

function train(frame: Frame, seed = 0): { enc: SslEncoder; steps: SslStep[]; data: Float32Array } {
  const spec = buildFeaturizer(frame, { labelColumn: null });
  const m = applyFeaturizer(spec, frame);
  const gen = trainEncoderSteps(spec, m, { seed });
  const steps: SslStep[] = [];
  for (let r = gen.next(); ; r = gen.next()) {
    if (r.done) return { enc: r.value, steps, data: m.data };
    steps.push(r.value);
  }
}

describe("ssl encoder", () => {
  it("is deterministic: same data and seed give identical weights, another seed others", () => {
    const f = correlated(1500);
    expect(train(f).enc).toEqual(train(f).enc);
    expect(train(f, 1).enc.weights).not.toBe(train(f).enc.weights);
  });

  it("learns structured data: validation loss falls well below the predict-the-mean baseline (≈ 1)", () => {
    const { enc, steps } = train(correlated(3000, { numericOnly: true }));
    const vals = steps.filter((s) => s.valLoss !== null).map((s) => s.valLoss!);
    expect(enc.training.valBaselineLoss).toBeGreaterThan(0.8);
    expect(enc.training.valBaselineLoss).toBeLessThan(1.2);
    expect(vals[vals.length - 1]).toBeLessThan(vals[0]);
    expect(enc.training.valLoss).toBeLessThan(0.3 * enc.training.valBaselineLoss!);
  });

  it("takes the planned number of steps, with a validation point every evalEvery steps and at the end", () => {
    const f = correlated(1000);
    const plan = planEncoder(f.rowCount, buildFeaturizer(f, { labelColumn: null }))!;
    const { steps } = train(f);
    expect(steps.map((s) => s.step)).toEqual(Array.from({ length: plan.steps }, (_, i) => i + 1));
    expect(steps.every((s) => s.totalSteps === plan.steps && Number.isFinite(s.trainLoss))).toBe(true);
    expect(steps.filter((s) => s.valLoss !== null).map((s) => s.step)).toEqual(
      steps.filter((s) => s.step % plan.evalEvery === 0 || s.step === plan.steps).map((s) => s.step),
    );
  });

  it("embeds every row, missing values included, as finite vectors of the embedding size", () => {
    const { enc, data } = train(correlated(800, { missing: 0.2 }));
    const allMissing = new Float32Array(enc.numFeatures).fill(NaN);
    const z = encodeRows(enc, Float32Array.from([...data, ...allMissing]), 801);
    expect(z.length).toBe(801 * SSL_EMBEDDING);
    expect(z.every(Number.isFinite)).toBe(true);
  });

  it("gives rows that break the learned structure a higher reconstruction error", () => {
    const f = correlated(2000, { numericOnly: true });
    const { enc, data } = train(f);
    const typical = data.slice(0, 4); // an ordinary row
    const broken = Float32Array.from([2, -2, 2, -2]); // x0 = u, x3 = u + v cannot disagree like this
    const [a, b] = reconstructionErrors(enc, Float32Array.from([...typical, ...broken]), 2);
    expect(b).toBeGreaterThan(5 * a);
  });

  it("rejects a stored encoder whose weights do not match its sizes", () => {
    const { enc } = train(correlated(300));
    expect(parseEncoder(JSON.parse(JSON.stringify(enc)))).toEqual(enc);
    expect(parseEncoder({ ...enc, weights: enc.weights.slice(8) })).toBeNull();
    expect(parseEncoder({ ...enc, hidden: 32 })).toBeNull();
  });
});

describe("float32 base64", () => {
  it("round-trips float32 values bit for bit at every padding length", () => {
    for (let n = 0; n < 5; n++) {
      const v = Float32Array.from({ length: n }, (_, i) => (i % 2 ? -1 : 1) * Math.PI ** (i * 7 - 10));
      expect(base64ToFloat32(float32ToBase64(v))).toEqual(v);
    }
    expect(base64ToFloat32("AAAA")).toBeNull(); // 3 bytes: not whole floats
  });
});
