/**
 * The anomaly model's scorer: what the engine needs to score rows the way the model's ONNX graph
 * does — the isolation forest's score (./score), optionally blended with the encoder's
 * reconstruction error (./blend), and the cut that decides `is_anomaly`. Training
 * (ml/unsupervised/anomaly) builds it and the explanations (ml/explain/explain-anomaly) score
 * changed rows with it, so it sits here, below both.
 */
import type { FeatureMatrix, FeaturizerSpec } from "../featurize";
import { reconstructionErrors, type SslEncoder } from "../ssl/encoder";
import { type BlendParams, blendLogits, logistic } from "./blend";
import type { IsolationForest } from "./forest";
import { scoreIsolationForest } from "./score";

/** How a scorer scores (the anomaly model's `method` parameter). */
export const ANOMALY_METHODS = ["isolation_forest", "blended"] as const;
export type AnomalyMethod = (typeof ANOMALY_METHODS)[number];

/** What the engine needs to score new rows (what the ONNX graph encodes). */
export interface AnomalyScorer {
  method: AnomalyMethod;
  featurizer: FeaturizerSpec;
  forest: IsolationForest;
  /** Blended only. */
  encoder: SslEncoder | null;
  blend: BlendParams | null;
  /** In score units (what the job output reports). */
  threshold: number;
  /**
   * The cut `is_anomaly` applies: score > cut for the forest (cut = threshold); for the blend,
   * logit > cut, before the saturating logistic (threshold = logistic(cut)).
   */
  cut: number;
}

/** The engine's scores and flags for a featurized matrix (what the ONNX graph reproduces). */
export function scoreAnomalyMatrix(scorer: AnomalyScorer, m: FeatureMatrix): { scores: Float64Array; isAnomaly: Uint8Array } {
  const errors = scorer.encoder ? reconstructionErrors(scorer.encoder, m.data, m.numRows) : null;
  const { scores, cutValues } = finishScores(scorer, scoreIsolationForest(scorer.forest, m.data, m.numRows), errors);
  return { scores, isAnomaly: Uint8Array.from(cutValues, (v) => (v > scorer.cut ? 1 : 0)) };
}

/** The model's scores and the values its cut applies to (see AnomalyScorer.cut), from the forest's scores and the reconstruction errors. */
export function finishScores(
  scorer: AnomalyScorer,
  forestScores: Float64Array,
  errors: Float64Array | null,
): { scores: Float64Array; cutValues: Float64Array } {
  if (!scorer.blend || !errors) return { scores: forestScores, cutValues: forestScores };
  const logits = blendLogits(scorer.blend, forestScores, errors);
  return { scores: logits.map(logistic), cutValues: logits };
}
