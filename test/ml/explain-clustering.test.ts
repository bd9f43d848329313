/**
 * Explanations of clustering models: contributions add up to the row's margin (distance to the
 * nearest other centre minus distance to its own) in the model's space, the column that separates
 * the clusters dominates, the flip is confirmed by the model; Shapley values (embedding space)
 * are exact on an additive function and symmetric.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { type ClusteringExplainer, readClusteringExplainer } from "../../src/ml/explain/clustering-file";
import { explainClusters } from "../../src/ml/explain/explain-clustering";
import { shapleyValues } from "../../src/ml/explain/shapley";
import { applyFeaturizer } from "../../src/ml/featurize";
import type { Frame } from "../../src/ml/frame";
import { Rng } from "../../src/ml/random";
import { buildRepresentation, type Representation } from "../../src/ml/representation/representation";
import { embed, standardize } from "../../src/ml/space/space";
import { type ClusteringModel, type ClusteringParams, trainClusteringSteps } from "../../src/ml/unsupervised/clustering";
import { assignClusters } from "./helpers/engine-scores";

const N = 400;

/** Two groups told apart by income (30k vs 90k); tenure and region are noise, the same in both. */
function customers(): Frame {
  const rng = new Rng(5);
  const income = Float64Array.from({ length: N }, (_, i) => (i % 2 ? 90_000 : 30_000) + Math.round((rng.next() - 0.5) * 20_000));
  const tenure = Float64Array.from({ length: N }, () => 1 + rng.int(60));
  const region = Int32Array.from({ length: N }, () => rng.int(3));
  income[10] = NaN;
  return {
    rowCount: N,
    columns: [
      { name: "income", kind: "numeric", storage: "numeric", values: income },
      { name: "tenure", kind: "numeric", storage: "numeric", values: tenure },
      { name: "region", kind: "categorical", storage: "dictionary", codes: region, dictionary: ["north", "south", "east"] },
    ],
  };
}

let frame: Frame;
let rep: Representation;

function train(params: ClusteringParams): ClusteringModel {
  const g = trainClusteringSteps(frame, { representation: rep, params });
  for (;;) {
    const r = g.next();
    if (r.done) return r.value;
  }
}

function explainerOf(model: ClusteringModel): ClusteringExplainer {
  const file = model.files?.find((f) => f.name === "kmeans.json");
  expect(file).toBeDefined();
  const ex = readClusteringExplainer(JSON.parse(new TextDecoder().decode(file!.bytes)), model.featurizer.features.length);
  expect(ex).not.toBeNull();
  return ex!;
}

/** Distances of every row to every centre, computed independently from the trained assigner. */
function distances(model: ClusteringModel): number[][] {
  const a = model.assigner;
  const m = applyFeaturizer(a.standard.featurizer, frame);
  const X = a.encoder ? embed(a.encoder, m) : standardize(a.standard, m);
  return Array.from({ length: N }, (_, i) =>
    Array.from({ length: a.k }, (_, c) => {
      let s = 0;
      for (let t = 0; t < a.dims; t++) s += (X[i * a.dims + t] - a.centroids[c * a.dims + t]) ** 2;
      return Math.sqrt(s);
    }),
  );
}

const ROWS = Array.from({ length: 40 }, (_, i) => i * 10);

beforeAll(() => {
  frame = customers();
  rep = buildRepresentation(frame, { seed: 0 });
});

describe.each(["features", "embedding"] as const)("%s space", (space) => {
  let model: ClusteringModel;
  let out: ReturnType<typeof explainClusters>;
  beforeAll(() => {
    model = train({ n_clusters: 2, space });
    const descriptions = new Map((model.head.clusters as { id: number; description: string }[]).map((c) => [c.id, c.description]));
    out = explainClusters(explainerOf(model), model.featurizer, frame, ROWS, descriptions);
  });

  it("names the served cluster and its runner-up; contributions add up to the margin between them", () => {
    const served = assignClusters(model.assigner, frame).cluster;
    const d = distances(model);
    out.forEach((e, i) => {
      const r = ROWS[i];
      expect(e.prediction).toBe(served[r]);
      expect(e.nearest_other_cluster).toBe(1 - served[r]);
      const margin = d[r][e.nearest_other_cluster] - d[r][e.prediction];
      expect(margin).toBeGreaterThanOrEqual(0);
      expect(e.distance).toBeCloseTo(d[r][e.prediction], 10);
      const sum = e.base_value + e.feature_contributions.reduce((s, c) => s + c.contribution, 0);
      expect(Math.abs(sum - margin)).toBeLessThan(1e-9);
      expect(e.feature_contributions.map((c) => c.column).sort()).toEqual(["income", "region", "tenure"]);
    });
    if (space === "features") expect(out.every((e) => e.base_value === 0)).toBe(true);
  });

  it("income, the column that separates the clusters, dominates and leads the text", () => {
    const led = out.filter((e) => e.feature_contributions[0].column === "income" && e.feature_contributions[0].contribution > 0);
    expect(led.length).toBeGreaterThanOrEqual(0.9 * out.length);
    const e = led[0];
    expect(e.explanation_text).toMatch(
      new RegExp(`^Placed in cluster ${e.prediction} mainly because income is [\\d,]+.*; the nearest other cluster is ${e.nearest_other_cluster}\\.`),
    );
    expect(e.explanation_label).toMatch(/^income=[\d,]+$/);
    expect(e.explanation_gloss).toMatch(space === "features" ? /boundary between the two clusters/ : /Shapley values.*exact/);
  });

  it("the flip changes one column and the model confirms the new cluster", () => {
    const flipped = out.filter((e) => e.prediction_flip);
    expect(flipped.length).toBeGreaterThanOrEqual(0.9 * out.length);
    for (const e of flipped.slice(0, 10)) {
      const f = e.prediction_flip!;
      expect(f.new_prediction).not.toBe(e.prediction);
      const r = ROWS[out.indexOf(e)];
      const col = frame.columns.find((c) => c.name === f.column)!;
      const changed: Frame = {
        ...frame,
        columns: frame.columns.map((c) => {
          if (c !== col) return c;
          if (c.storage === "numeric") return { ...c, values: Float64Array.from(c.values, (v, i) => (i === r ? (f.to as number) : v)) };
          return { ...c, codes: Int32Array.from(c.codes, (v, i) => (i === r ? c.dictionary.indexOf(f.to as string) : v)) };
        }),
      };
      expect(assignClusters(model.assigner, changed).cluster[r]).toBe(f.new_prediction);
      expect(e.explanation_text).toMatch(new RegExp(`With ${f.column} .* it would be in cluster ${f.new_prediction}\\.$`));
    }
    // income moves the row across with the smallest change (region and tenure do not separate them)
    expect(flipped.filter((e) => e.prediction_flip!.column === "income").length).toBeGreaterThanOrEqual(0.8 * flipped.length);
  });
});

describe("Shapley values", () => {
  it("equal each player's own term for an additive function, exactly and from sampled orders, and add up", () => {
    for (const C of [5, 12]) {
      const w = Array.from({ length: C }, (_, j) => (j % 3) - 1 + j / 10);
      const { phi, empty } = shapleyValues(C, (masks) => Float64Array.from(masks, (m) => 2 + m.reduce((s, b, j) => s + b * w[j], 0)));
      expect(empty).toBe(2);
      for (let j = 0; j < C; j++) expect(phi[j]).toBeCloseTo(w[j], 12);
    }
  });

  it("are symmetric and efficient on an interaction (exact for few players, efficient when sampled)", () => {
    // v = x0·x1 + x2: players 0 and 1 share the product's unit, player 2 gets its own
    const v = (masks: Uint8Array[]) => Float64Array.from(masks, (m) => m[0] * m[1] + m[2]);
    const exact = shapleyValues(4, v);
    expect(Array.from(exact.phi)).toEqual([0.5, 0.5, 1, 0]);
    const sampled = shapleyValues(10, v);
    expect(sampled.phi.reduce((a, b) => a + b, 0)).toBeCloseTo(2, 12);
    expect(sampled.phi[2]).toBeCloseTo(1, 12);
    expect(sampled.phi[0] + sampled.phi[1]).toBeCloseTo(1, 12);
  });
});

describe("the stored file", () => {
  it("reads back; another width or format reads as null", () => {
    const model = train({ n_clusters: 3 });
    const ex = explainerOf(model);
    expect(ex.k).toBe(3);
    expect(Array.from(ex.centroids)).toEqual(Array.from(model.assigner.centroids));
    const json = JSON.parse(new TextDecoder().decode(model.files![0].bytes));
    expect(readClusteringExplainer(json, 4)).toBeNull();
    expect(readClusteringExplainer({ ...json, format: "x" }, 3)).toBeNull();
  });
});
