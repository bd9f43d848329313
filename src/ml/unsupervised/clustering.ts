/**
 * The `clustering` model: k-means (../kmeans: greedy k-means++ seeding, exact Hamerly
 * iterations, restarts keeping the lowest inertia) in one of two spaces:
 * - "features": the standardized features (../space/space standardize: z-scores clipped to ±5,
 *   one-hot categories) — the default, see bench/unsupervised/clustering-RESULTS.md;
 * - "embedding": the shared encoder's embedding (or one trained on input_columns).
 * k is `n_clusters`, or the best mean silhouette over k = 2..10 on a seeded sample
 * (../kmeans/choose-k). Each cluster gets a description in the original units
 * (./describe-clusters).
 *
 * ONNX: features float32 [N,F] → standardize | embedding stage → nearest centroid →
 * `cluster` int64 [N] (0-based), `distance` double [N] (Euclidean, in the model's space).
 * Explanations read `kmeans.json` (../explain/clustering-file), written here too.
 */
import { MlInputError } from "../errors";
import { clusteringExplainFile } from "../explain/clustering-file";
import { applyFeaturizer } from "../featurize";
import type { FitStep, UnsupervisedModel, UnsupervisedTrainOptions } from "../fit/contract";
import type { Frame } from "../frame";
import { AUTO_K_MAX, chooseKSteps, clusterSamples, fitSampleMatrix, sampleSilhouette } from "../kmeans/choose-k";
import { type KMeansResult, kmeansSteps } from "../kmeans/kmeans";
import { addNearestCenterStage } from "../kmeans/onnx";
import { countDistinctRows } from "../kmeans/rows";
import { GraphBuilder } from "../onnx/graph";
import { DataType } from "../onnx/onnx-proto";
import {
  addEmbeddingStage,
  addFeaturesInput,
  addStandardizeStage,
  embed,
  encoderFor,
  type StandardSpace,
  standardize,
  standardSpace,
} from "../space/space";
import type { SslEncoder } from "../ssl/encoder";
import { describeClusters } from "./describe-clusters";

const CLUSTERING_SPACES = ["features", "embedding"] as const;
export type ClusteringSpace = (typeof CLUSTERING_SPACES)[number];

export interface ClusteringParams {
  /** Integer ≥ 2, at most the rows (and the distinct rows); absent/null: chosen by silhouette over 2..10. */
  n_clusters?: number | null;
  /** Default "features". */
  space?: ClusteringSpace;
  /** k-means restarts, integer in [1, 100]; default 3. */
  n_init?: number;
  /** Iterations per restart, integer in [1, 10000]; default 300. */
  max_iter?: number;
  /** Integer; default 0. */
  seed?: number;
}

export const DEFAULT_CLUSTERING_PARAMS = { space: "features" as ClusteringSpace, n_init: 3, max_iter: 300, seed: 0 };

/** What the engine needs to assign new rows (what the ONNX graph encodes). */
interface ClusterAssigner {
  space: ClusteringSpace;
  standard: StandardSpace;
  /** The embedding space's encoder (reads standard.featurizer's matrix); null for "features". */
  encoder: SslEncoder | null;
  /** [k x dims]. */
  centroids: Float64Array;
  k: number;
  dims: number;
}

export interface ClusteringModel extends UnsupervisedModel {
  assigner: ClusterAssigner;
}

export function* trainClusteringSteps(frame: Frame, opts: UnsupervisedTrainOptions<ClusteringParams>): Generator<FitStep, ClusteringModel, void> {
  const p = resolveParams(opts.params ?? {});
  const rep = opts.representation;
  const standard = standardSpace(rep, opts.inputColumns);
  const encoder = p.space === "embedding" ? yield* encoderFor(frame, rep, standard, { seed: p.seed }) : null;
  const m = applyFeaturizer(standard.featurizer, frame);
  const n = m.numRows;
  const X = encoder ? embed(encoder, m) : standardize(standard, m);
  const d = encoder ? encoder.embedding : standard.D;
  const samples = clusterSamples(n, p.seed);
  const km = { nInit: p.n_init, maxIter: p.max_iter, seed: p.seed, parallel: opts.parallel };

  let k: number;
  let fit: KMeansResult | null = null;
  let scores: { k: number; silhouette: number | null }[] | null = null;
  let step = 0;
  let totalSteps = p.n_init;
  if (p.n_clusters != null) {
    k = p.n_clusters;
    if (k > n) throw new MlInputError(`n_clusters is ${k} but the dataset has only ${n} rows`);
    const distinct = countDistinctRows(X, n, d, k);
    if (distinct < k) throw new MlInputError(`n_clusters is ${k} but the rows take only ${distinct} distinct values in the model's features`);
  } else {
    if (n < 3) throw new MlInputError("choosing the number of clusters needs at least 3 rows (or set n_clusters)");
    if (countDistinctRows(X, n, d, 2) < 2)
      throw new MlInputError("every row has the same values in the model's features: there is nothing to cluster");
    const F = fitSampleMatrix(X, n, d, samples);
    const fitRows = samples.fit.length;
    const kMax = Math.max(2, Math.min(AUTO_K_MAX, fitRows - 1, countDistinctRows(F, fitRows, d, AUTO_K_MAX)));
    // the final fit is the chosen candidate's when the candidates saw every row
    totalSteps = (kMax - 1) * p.n_init + (fitRows === n ? 0 : p.n_init);
    const choosing = chooseKSteps(X, n, d, samples, F, { kMax, ...km });
    for (;;) {
      const r = choosing.next();
      if (r.done) {
        ({ k, fit, scores } = r.value);
        break;
      }
      yield { phase: "fit", step: ++step, totalSteps };
    }
  }
  if (!fit) {
    // unplanned (no step shown) only when no candidate on every row could be scored
    const planned = step < totalSteps;
    const steps = kmeansSteps(X, n, d, { k, ...km });
    for (;;) {
      const r = steps.next();
      if (r.done) {
        fit = r.value;
        break;
      }
      if (planned) yield { phase: "fit", step: ++step, totalSteps };
    }
  }
  const { centers } = fit;
  const silhouette = sampleSilhouette(X, d, samples.silhouette, centers, k);
  const assigner: ClusterAssigner = { space: p.space, standard, encoder, centroids: centers, k, dims: d };
  return buildModel(assigner, fit, m, { silhouette, silhouetteRows: samples.silhouette.length, scores, p, sharedEncoder: encoder === rep.encoder });
}

function exportClusteringOnnx(a: ClusterAssigner): Uint8Array {
  const g = new GraphBuilder();
  const x = addFeaturesInput(g, a.standard.featurizer.features.length);
  const s = a.encoder ? addEmbeddingStage(g, a.encoder, x) : addStandardizeStage(g, a.standard, x);
  const { cluster, distance } = addNearestCenterStage(g, s, a.centroids, a.k, a.dims);
  g.output(cluster, "cluster", DataType.INT64, ["N"], "0-based cluster id (nearest centroid)");
  g.output(distance, "distance", DataType.DOUBLE, ["N"], `Euclidean distance to the cluster's centroid in the ${a.space} space`);
  return g.finish({
    name: "clustering",
    docString: `k-means, ${a.k} clusters in the ${a.space} space`,
    metadata: { model_type: "clustering", n_clusters: String(a.k), space: a.space },
  });
}

interface BuildInfo {
  silhouette: number | null;
  silhouetteRows: number;
  scores: { k: number; silhouette: number | null }[] | null;
  p: Required<Omit<ClusteringParams, "n_clusters">>;
  sharedEncoder: boolean;
}

function buildModel(a: ClusterAssigner, fit: KMeansResult, m: ReturnType<typeof applyFeaturizer>, info: BuildInfo): ClusteringModel {
  const { k, dims, centroids } = a;
  const n = m.numRows;
  const sizes = new Array<number>(k).fill(0);
  for (const c of fit.labels) sizes[c]++;
  const profiles = describeClusters(a.standard.featurizer, m, fit.labels, k);
  const columns = a.encoder ? Array.from({ length: dims }, (_, t) => `embedding_${t}`) : a.standard.columnNames;
  const clusters = sizes.map((size, c) => ({
    id: c,
    size,
    share: size / n,
    description: profiles.descriptions[c],
    centroid: Object.fromEntries(columns.map((name, t) => [name, centroids[c * dims + t]])),
    means: profiles.means[c],
  }));
  const chosenBy = info.scores ? "silhouette" : "n_clusters";
  const kSelection = {
    method: chosenBy,
    ...(info.scores ? { candidates: info.scores.map((s) => ({ k: s.k, silhouette_score: s.silhouette })) } : {}),
  };
  return {
    modelType: "clustering",
    featurizer: a.standard.featurizer,
    onnx: exportClusteringOnnx(a),
    head: {
      n_clusters: k,
      space: a.space,
      cluster_output: "cluster",
      distance_output: "distance",
      clusters: clusters.map((c) => ({ id: c.id, description: c.description })),
    },
    metrics: { n_clusters: k, silhouette_score: info.silhouette },
    output: {
      n_clusters: k,
      space: a.space,
      cluster_sizes: sizes,
      k_selection: kSelection,
      inertia: fit.inertia,
      iterations: fit.iterations,
    },
    summary: {
      algorithm: "k-means: greedy k-means++ seeding, exact Hamerly iterations",
      space: a.space,
      ...(a.encoder ? { encoder: info.sharedEncoder ? "shared" : "trained for this model" } : {}),
      n_clusters: k,
      k_selection: kSelection,
      silhouette_score: info.silhouette,
      silhouette_sample_rows: info.silhouetteRows,
      inertia: fit.inertia,
      iterations: fit.iterations,
      converged: fit.converged,
      n_init: info.p.n_init,
      max_iter: info.p.max_iter,
      training_rows: n,
      columns,
      clusters,
    },
    // what explanations read besides the graph (the space, the centres, typical values)
    files: [clusteringExplainFile({ space: a.space, layout: a.standard.layout, encoder: a.encoder, centroids, k, dims }, a.standard.featurizer, m)],
    assigner: a,
  };
}

function resolveParams(params: ClusteringParams): Required<Omit<ClusteringParams, "n_clusters">> & { n_clusters: number | null } {
  const p = {
    n_clusters: params.n_clusters ?? null,
    space: params.space ?? DEFAULT_CLUSTERING_PARAMS.space,
    n_init: params.n_init ?? DEFAULT_CLUSTERING_PARAMS.n_init,
    max_iter: params.max_iter ?? DEFAULT_CLUSTERING_PARAMS.max_iter,
    seed: params.seed ?? DEFAULT_CLUSTERING_PARAMS.seed,
  };
  const check = (name: string, v: unknown, ok: boolean) => {
    if (!ok) throw new MlInputError(`invalid parameter ${name}: ${String(v)}`);
  };
  const k = p.n_clusters;
  check("n_clusters", k, k === null || (Number.isInteger(k) && k >= 2));
  check("space", p.space, (CLUSTERING_SPACES as readonly string[]).includes(p.space));
  check("n_init", p.n_init, Number.isInteger(p.n_init) && p.n_init >= 1 && p.n_init <= 100);
  check("max_iter", p.max_iter, Number.isInteger(p.max_iter) && p.max_iter >= 1 && p.max_iter <= 10_000);
  check("seed", p.seed, Number.isInteger(p.seed));
  return p;
}
