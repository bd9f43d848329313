/**
 * What a clustering model stores for its explanations (`kmeans.json`, next to model.onnx): the
 * space it clusters in — the standardized features' layout (means, deviations, one-hot levels),
 * or the encoder for the embedding space — its centres at full precision, and what is typical of
 * each feature (the values its counterfactuals try). The ONNX graph holds the same numbers as
 * constants, but reading them back from it would tie explanations to the graph's shape. Written at
 * training by ../unsupervised/clustering, read by the `infer_explain` job; a version trained
 * before this file existed has none, and its rows cannot be explained until it is retrained.
 */
import type { FeatureMatrix, FeaturizerSpec } from "../featurize";
import { parseEncoder, type SslEncoder } from "../ssl/encoder";
import { compileLayout, type SslFeature } from "../ssl/layout";
import { type FeatureStats, featureStats } from "./feature-stats";

/** The file's name (ARTIFACT_FILES.kmeans on the storage side). */
const CLUSTERING_EXPLAIN_FILE = "kmeans.json";
const FORMAT = "clustering-explain-v1";

export interface ClusteringExplainer {
  space: "features" | "embedding";
  /** The standardized space of the model's featurizer (one entry per feature). */
  layout: SslFeature[];
  /** Embedding space only: the encoder (reads the featurizer's matrix). */
  encoder: SslEncoder | null;
  /** [k x dims], row-major. */
  centroids: Float64Array;
  k: number;
  dims: number;
  /** Per feature of the featurizer. */
  stats: FeatureStats[];
}

interface Stored extends Omit<ClusteringExplainer, "centroids"> {
  format: typeof FORMAT;
  centroids: number[];
}

export function clusteringExplainFile(
  a: Omit<ClusteringExplainer, "stats">,
  featurizer: FeaturizerSpec,
  m: FeatureMatrix,
): { name: string; bytes: Uint8Array } {
  const stored: Stored = { format: FORMAT, ...a, centroids: Array.from(a.centroids), stats: featureStats(featurizer, m) };
  return { name: CLUSTERING_EXPLAIN_FILE, bytes: new TextEncoder().encode(JSON.stringify(stored)) };
}

/** The stored explainer, or null when the file is not one this engine reads. */
export function readClusteringExplainer(json: unknown, numFeatures: number): ClusteringExplainer | null {
  const s = json as Stored;
  if (!s || typeof s !== "object" || s.format !== FORMAT) return null;
  if (!Array.isArray(s.stats) || s.stats.length !== numFeatures || !Array.isArray(s.layout) || s.layout.length !== numFeatures) return null;
  if (!Number.isInteger(s.k) || s.k < 2 || !Number.isInteger(s.dims) || !Array.isArray(s.centroids) || s.centroids.length !== s.k * s.dims)
    return null;
  const encoder = s.space === "embedding" ? parseEncoder(s.encoder) : null;
  if (s.space === "embedding" ? !encoder || encoder.numFeatures !== numFeatures || encoder.embedding !== s.dims : s.space !== "features") return null;
  if (s.space === "features" && compileLayout(s.layout).D !== s.dims) return null;
  return { space: s.space, layout: s.layout, encoder, centroids: Float64Array.from(s.centroids), k: s.k, dims: s.dims, stats: s.stats };
}
