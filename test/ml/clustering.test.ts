import { beforeAll, describe, expect, it } from "vitest";
import { MlInputError } from "../../src/ml/errors";
import { applyFeaturizer } from "../../src/ml/featurize";
import type { FitStep } from "../../src/ml/fit/contract";
import type { Frame } from "../../src/ml/frame";
import { adjustedRandIndex } from "../../src/ml/kmeans/ari";
import { Rng } from "../../src/ml/random";
import { buildRepresentation, type Representation } from "../../src/ml/representation/representation";
import { type ClusteringModel, type ClusteringParams, trainClusteringSteps } from "../../src/ml/unsupervised/clustering";
import { describeClusters, formatNumber } from "../../src/ml/unsupervised/describe-clusters";
import { assignClusters } from "./helpers/engine-scores";
import { createSession, runFeatures, toNumbers } from "./helpers/ort-node";

/**
 * Two groups: "premium" customers (income ≈ 90k, plan mostly premium) and "basic" ones
 * (income ≈ 30k, plan mostly basic); age is noise, the same in both; a few values missing.
 */
function customers(n: number, seed: number): { frame: Frame; group: Int32Array } {
  const rng = new Rng(seed);
  const group = Int32Array.from({ length: n }, (_, i) => i % 2);
  const income = Float64Array.from(group, (g) => (rng.next() < 0.03 ? NaN : (g ? 90_000 : 30_000) + (rng.next() - 0.5) * 20_000));
  const plan = Int32Array.from(group, (g) => (rng.next() < 0.9 ? g : 1 - g));
  const age = Float64Array.from({ length: n }, () => 20 + Math.floor(rng.next() * 50));
  const id = Float64Array.from({ length: n }, (_, i) => i + 1);
  return {
    group,
    frame: {
      rowCount: n,
      columns: [
        { name: "id", kind: "id", storage: "numeric", values: id },
        { name: "income", kind: "numeric", storage: "numeric", values: income },
        { name: "plan", kind: "categorical", storage: "dictionary", codes: plan, dictionary: ["basic", "premium"] },
        { name: "age", kind: "numeric", storage: "numeric", values: age },
      ],
    },
  };
}

/** n rows in k tight groups on a circle of two numeric columns. */
function groups(n: number, k: number, seed: number): Frame {
  const rng = new Rng(seed);
  const a = new Float64Array(n);
  const b = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const angle = (2 * Math.PI * (i % k)) / k;
    a[i] = 10 * Math.cos(angle) + rng.next() - 0.5;
    b[i] = 10 * Math.sin(angle) + rng.next() - 0.5;
  }
  return {
    rowCount: n,
    columns: [
      { name: "a", kind: "numeric", storage: "numeric", values: a },
      { name: "b", kind: "numeric", storage: "numeric", values: b },
    ],
  };
}

function train(frame: Frame, rep: Representation, params: ClusteringParams, inputColumns?: string[]): { model: ClusteringModel; steps: FitStep[] } {
  const g = trainClusteringSteps(frame, { representation: rep, params, inputColumns });
  const steps: FitStep[] = [];
  for (;;) {
    const r = g.next();
    if (r.done) return { model: r.value, steps };
    steps.push(r.value);
  }
}

async function expectOnnxEqualsEngine(model: ClusteringModel, frame: Frame): Promise<void> {
  const session = await createSession(model.onnx);
  const m = applyFeaturizer(model.featurizer, frame);
  const out = await runFeatures(session, m.data, m.numRows, m.numFeatures);
  const engine = assignClusters(model.assigner, frame);
  expect(toNumbers(out.cluster)).toEqual(Array.from(engine.cluster));
  const distance = toNumbers(out.distance);
  for (let i = 0; i < m.numRows; i++) expect(Math.abs(distance[i] - engine.distance[i])).toBeLessThanOrEqual(1e-5);
}

describe("clustering model", () => {
  let data: { frame: Frame; group: Int32Array };
  let rep: Representation;
  beforeAll(() => {
    data = customers(400, 1);
    rep = buildRepresentation(data.frame);
  });

  it("separates the two groups and says what sets each apart, in the original units", () => {
    const { model } = train(data.frame, rep, { n_clusters: 2 });
    expect(adjustedRandIndex(assignClusters(model.assigner, data.frame).cluster, data.group)).toBeGreaterThan(0.6);
    const clusters = model.head.clusters as { id: number; description: string }[];
    const rich = clusters.find((c) => c.description.includes("income high"))!;
    expect(rich.description).toMatch(/^income high \(mean \d+(\.\d)?k vs \d+(\.\d)?k overall\)/);
    expect(rich.description).toContain("plan mostly 'premium'");
    expect(rich.description).not.toContain("age");
    expect(clusters.find((c) => c !== rich)!.description).toContain("income low");
    expect(Object.keys(model.metrics).sort()).toEqual(["n_clusters", "silhouette_score"]);
    expect(model.metrics.n_clusters).toBe(2);
    expect(model.metrics.silhouette_score).toBeGreaterThan(0.2);
  });

  it("reports sizes, centroids in the space's columns and original means", () => {
    const { model } = train(data.frame, rep, { n_clusters: 2 });
    const s = model.summary as any;
    expect(s.space).toBe("features");
    expect(s.clusters.map((c: any) => c.size).reduce((a: number, b: number) => a + b, 0)).toBe(400);
    expect(Object.keys(s.clusters[0].centroid).sort()).toEqual(["age", "income", "plan=basic", "plan=premium"]);
    expect(s.clusters[0].means.income).toBeGreaterThan(20_000);
    expect(s.k_selection).toEqual({ method: "n_clusters" });
    expect((model.output as any).cluster_sizes).toEqual(s.clusters.map((c: any) => c.size));
  });

  it("chooses k by silhouette when n_clusters is absent", () => {
    const frame = groups(300, 3, 2);
    const { model, steps } = train(frame, buildRepresentation(frame, { encoder: false }), {});
    const s = model.summary as any;
    expect(s.k_selection.method).toBe("silhouette");
    expect(s.k_selection.candidates.map((c: any) => c.k)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(model.metrics.n_clusters).toBe(3);
    // every row is in the sample: the chosen candidate is the final fit, 9 k × 3 restarts
    expect(steps.map((x) => x.step)).toEqual(Array.from({ length: 27 }, (_, i) => i + 1));
    expect(steps.every((x) => x.phase === "fit" && x.totalSteps === 27)).toBe(true);
  });

  it("ONNX equals the engine in the features space, on unseen rows with missing values", async () => {
    const { model } = train(data.frame, rep, { n_clusters: 3 });
    const test = customers(80, 9).frame;
    (test.columns[2] as { dictionary: string[] }).dictionary = ["basic", "gold"]; // unseen level: missing
    await expectOnnxEqualsEngine(model, test);
  });

  it("ONNX equals the engine in the embedding space", async () => {
    const { model } = train(data.frame, rep, { n_clusters: 3, space: "embedding" });
    expect((model.summary as any).encoder).toBe("shared");
    expect(Object.keys((model.summary as any).clusters[0].centroid)).toHaveLength(16);
    await expectOnnxEqualsEngine(model, customers(80, 10).frame);
  });

  it("gives byte-identical ONNX and head for the same seed and data", () => {
    const a = train(data.frame, rep, { n_clusters: 3, seed: 4 }).model;
    const b = train(data.frame, rep, { n_clusters: 3, seed: 4 }).model;
    expect(Buffer.from(b.onnx).equals(Buffer.from(a.onnx))).toBe(true);
    expect(JSON.stringify(b.head)).toBe(JSON.stringify(a.head));
  });

  it("rejects n_clusters above the rows or the distinct rows, and bad parameters", () => {
    expect(() => train(data.frame, rep, { n_clusters: 401 })).toThrow(MlInputError);
    // only income and plan: plan alone takes 2 distinct values
    expect(() => train(data.frame, rep, { n_clusters: 3 }, ["plan"])).toThrow(/only 2 distinct/);
    expect(() => train(data.frame, rep, { n_clusters: 1 })).toThrow(MlInputError);
    expect(() => train(data.frame, rep, { n_init: 0 })).toThrow(MlInputError);
    expect(() => train(data.frame, rep, { space: "pixels" as never })).toThrow(MlInputError);
  });
});

describe("cluster descriptions", () => {
  it("formats numbers readably", () => {
    expect([91_234, 52_000, 999_960, 1.5e6, 0.01234, 7, -1500].map(formatNumber)).toEqual(["91.2k", "52k", "1M", "1.5M", "0.0123", "7", "-1.5k"]);
  });

  it("names a boolean's share and says when nothing stands out", () => {
    const frame: Frame = {
      rowCount: 8,
      columns: [
        { name: "member", kind: "boolean", storage: "numeric", values: Float64Array.from([1, 1, 1, 0, 0, 0, 0, 1]) },
        { name: "x", kind: "numeric", storage: "numeric", values: Float64Array.from([1, 2, 1, 2, 1, 2, 1, 2]) },
      ],
    };
    const rep = buildRepresentation(frame, { encoder: false });
    const m = applyFeaturizer(rep.featurizer, frame);
    const byMember = describeClusters(rep.featurizer, m, Int32Array.from([0, 0, 0, 1, 1, 1, 1, 0]), 2);
    expect(byMember.descriptions[0]).toBe("member true for 100% (vs 50% overall)");
    const mixed = describeClusters(rep.featurizer, m, Int32Array.from([0, 0, 1, 1, 0, 0, 1, 1]), 2);
    expect(mixed.descriptions[0]).toMatch(/^close to the overall averages/);
  });
});
