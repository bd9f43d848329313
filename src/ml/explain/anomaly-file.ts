/**
 * What an anomaly model stores for its explanations (`iforest.json`, next to model.onnx): the
 * isolation forest with its sub-sample sizes (TreeSHAP's covers, absent from the ONNX graph), the
 * blend and its encoder when the model blends, where the training rows' reconstruction error
 * usually lies (each feature's share), and what is typical of each feature. Written at training
 * by ../unsupervised/anomaly, read by the `infer_explain` job; a version trained before this file
 * existed has none, and its rows cannot be explained until it is retrained.
 */
import type { FeatureMatrix, FeaturizerSpec } from "../featurize";
import type { BlendParams } from "../iforest/blend";
import type { IsolationForest } from "../iforest/forest";
import { readForest, type StoredForest, storeForest } from "../iforest/stored";
import { parseEncoder, reconstructionErrorParts, type SslEncoder } from "../ssl/encoder";
import { type FeatureStats, featureStats } from "./feature-stats";

/** The file's name (ARTIFACT_FILES.iforest on the storage side). */
const ANOMALY_EXPLAIN_FILE = "iforest.json";
const FORMAT = "anomaly-explain-v1";
/** Training rows whose reconstruction errors set the features' shares: evenly spaced, bounded cost. */
const SHARE_ROWS = 20_000;

/** What explaining an anomaly model's rows needs, besides its featurizer. */
export interface AnomalyExplainer {
  method: "isolation_forest" | "blended";
  forest: IsolationForest;
  encoder: SslEncoder | null;
  blend: BlendParams | null;
  /** The cut and threshold of the model (see AnomalyScorer, ../iforest/anomaly-scorer). */
  cut: number;
  threshold: number;
  /** Blended: per feature, its share of the training rows' total reconstruction error (adds to 1). */
  errorShares: Float64Array | null;
  /** Per feature of the featurizer. */
  stats: FeatureStats[];
}

interface Stored extends Omit<AnomalyExplainer, "forest" | "errorShares"> {
  format: typeof FORMAT;
  forest: StoredForest;
  errorShares: number[] | null;
}

/** The file's bytes, from the trained scorer's parts and the training matrix. */
export function anomalyExplainFile(
  scorer: Omit<AnomalyExplainer, "errorShares" | "stats">,
  featurizer: FeaturizerSpec,
  m: FeatureMatrix,
): { name: string; bytes: Uint8Array } {
  let errorShares: number[] | null = null;
  if (scorer.encoder && scorer.blend) {
    const F = m.numFeatures;
    const stride = Math.max(1, Math.ceil(m.numRows / SHARE_ROWS));
    const rows = Math.ceil(m.numRows / stride);
    const sample = new Float32Array(rows * F);
    for (let i = 0; i < rows; i++) sample.set(m.data.subarray(i * stride * F, (i * stride + 1) * F), i * F);
    const parts = reconstructionErrorParts(scorer.encoder, sample, rows);
    const sums = new Float64Array(F);
    for (let i = 0; i < rows; i++) for (let j = 0; j < F; j++) sums[j] += parts[i * F + j];
    const total = sums.reduce((a, b) => a + b, 0);
    // a perfect reconstruction everywhere: no feature is where errors usually are, so all are alike
    errorShares = Array.from(sums, (s) => (total > 0 ? s / total : 1 / F));
  }
  const stored: Stored = {
    format: FORMAT,
    method: scorer.method,
    forest: storeForest(scorer.forest),
    encoder: scorer.encoder,
    blend: scorer.blend,
    cut: scorer.cut,
    threshold: scorer.threshold,
    errorShares,
    stats: featureStats(featurizer, m),
  };
  return { name: ANOMALY_EXPLAIN_FILE, bytes: new TextEncoder().encode(JSON.stringify(stored)) };
}

/** The stored explainer, or null when the file is not one this engine reads. */
export function readAnomalyExplainer(json: unknown, numFeatures: number): AnomalyExplainer | null {
  const s = json as Stored;
  if (!s || typeof s !== "object" || s.format !== FORMAT || !Array.isArray(s.stats) || s.stats.length !== numFeatures) return null;
  const forest = readForest(s.forest);
  if (!forest || forest.numFeatures !== numFeatures) return null;
  const blended = s.method === "blended";
  const encoder = blended ? parseEncoder(s.encoder) : null;
  if (blended && (!encoder || !s.blend || !Array.isArray(s.errorShares) || s.errorShares.length !== numFeatures)) return null;
  return {
    method: blended ? "blended" : "isolation_forest",
    forest,
    encoder,
    blend: blended ? s.blend : null,
    cut: s.cut,
    threshold: s.threshold,
    errorShares: blended ? Float64Array.from(s.errorShares!) : null,
    stats: s.stats,
  };
}
