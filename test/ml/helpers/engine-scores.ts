/**
 * The engine's own answers for new rows, computed in TypeScript the way each model's ONNX graph
 * computes them. The service answers with the graphs; the tests hold the graphs (and the
 * explanations) to these.
 */
import type { PcaFit } from "../../../src/ml/factors/pca";
import { applyFeaturizer, type FeatureMatrix, type FeaturizerSpec } from "../../../src/ml/featurize";
import type { Frame } from "../../../src/ml/frame";
import type { GbdtModel } from "../../../src/ml/gbdt/model";
import { predict } from "../../../src/ml/gbdt/predict";
import { type AnomalyScorer, scoreAnomalyMatrix } from "../../../src/ml/iforest/anomaly-scorer";
import { assignNearest } from "../../../src/ml/kmeans/centers";
import type { Representation } from "../../../src/ml/representation/representation";
import { embed, standardize } from "../../../src/ml/space/space";
import { encodeRows64, type SslEncoder } from "../../../src/ml/ssl/encoder";
import type { ClusteringModel } from "../../../src/ml/unsupervised/clustering";
import type { FactorsModel } from "../../../src/ml/unsupervised/factors";

export interface FramePredictions {
  /** Regression values, or predicted class labels. */
  predictions: (number | string)[];
  /** Classification: row-major [rows x classes] probabilities (class order = model.classes). */
  probabilities: Float64Array | null;
}

/** Predict a frame with a trained model and its featurizer (extra columns ignored, missing ones = missing). */
export function predictFrame(model: GbdtModel, featurizer: FeaturizerSpec, frame: Frame): FramePredictions {
  const m = applyFeaturizer(featurizer, frame);
  const out = predict(model, m.data, m.numRows);
  if (model.objective === "regression") return { predictions: Array.from(out), probabilities: null };
  const classes = model.classes ?? [];
  const K = model.objective === "binary" ? 2 : model.numOutputs;
  const probs = new Float64Array(m.numRows * K);
  const predictions: string[] = new Array(m.numRows);
  for (let i = 0; i < m.numRows; i++) {
    if (model.objective === "binary") {
      probs[i * 2] = 1 - out[i];
      probs[i * 2 + 1] = out[i];
    } else probs.set(out.subarray(i * K, i * K + K), i * K);
    let best = 0;
    for (let k = 1; k < K; k++) if (probs[i * K + k] > probs[i * K + best]) best = k;
    predictions[i] = classes[best] ?? String(best);
  }
  return { predictions, probabilities: probs };
}

/** The anomaly model's scores and flags for a frame. */
export function scoreAnomalies(scorer: AnomalyScorer, frame: Frame): { scores: Float64Array; isAnomaly: Uint8Array } {
  return scoreAnomalyMatrix(scorer, applyFeaturizer(scorer.featurizer, frame));
}

/** The clustering model's cluster and distance of each row of a frame. */
export function assignClusters(a: ClusteringModel["assigner"], frame: Frame): { cluster: Int32Array; distance: Float64Array } {
  const m = applyFeaturizer(a.standard.featurizer, frame);
  const X = a.encoder ? embed(a.encoder, m) : standardize(a.standard, m);
  const { labels, dist2 } = assignNearest(X, m.numRows, a.dims, a.centroids, a.k);
  return { cluster: labels, distance: dist2.map(Math.sqrt) };
}

/** The factors model's scores of a featurized matrix: [N x k]. */
export function factorScores(scorer: FactorsModel["scorer"], m: FeatureMatrix): Float64Array {
  return pcaScores(scorer.fit, standardize(scorer.space, m), m.numRows);
}

/** Scores of standardized rows x [rows x D]: (x − mean)·componentsᵀ, row-major [rows x k]. */
export function pcaScores(fit: Pick<PcaFit, "D" | "k" | "mean" | "components">, x: Float64Array, rows: number): Float64Array {
  const { D, k, mean, components } = fit;
  const out = new Float64Array(rows * k);
  const centered = new Float64Array(D);
  for (let i = 0; i < rows; i++) {
    for (let d = 0; d < D; d++) centered[d] = x[i * D + d] - mean[d];
    for (let j = 0; j < k; j++) {
      let s = 0;
      for (let d = 0; d < D; d++) s += centered[d] * components[j * D + d];
      out[i * k + j] = s;
    }
  }
  return out;
}

/**
 * Embeddings of a frame's rows with the representation's encoder: row-major
 * [frame.rowCount x encoder.embedding], or null when the representation has no encoder. The
 * frame may be any table with the dataset's columns (absent ones count as missing).
 */
export function embedFrame(rep: Representation, frame: Frame): Float32Array | null {
  if (!rep.encoder) return null;
  const m = applyFeaturizer(rep.featurizer, frame);
  return encodeRows(rep.encoder, m.data, m.numRows);
}

/** Embeddings of the rows of a featurized matrix [numRows x encoder.numFeatures]: row-major [numRows x embedding], as float32. */
export function encodeRows(encoder: SslEncoder, data: Float32Array, numRows: number): Float32Array {
  return Float32Array.from(encodeRows64(encoder, data, numRows));
}
