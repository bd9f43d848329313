/**
 * The featurizer file that travels with a prediction model's ONNX graph: everything needed to
 * turn a table into the graph's `features` input and its outputs back into labels. Inference in
 * the Worker reads it; users download it with the model.
 */
import type { FeaturizerSpec } from "../ml/featurize";
import type { Task } from "../ml/label";

export const FEATURIZER_FORMAT = "prediction-featurizer-v1";

export interface PredictionArtifact {
  format: typeof FEATURIZER_FORMAT;
  model_type: "prediction";
  task: Task;
  label_column: string;
  /** Class labels in the order of the graph's `probabilities` columns (classification). */
  classes: string[] | null;
  featurizer: FeaturizerSpec;
  onnx: { input: "features"; outputs: string[]; num_features: number };
  service_runtime_version: string;
}

export function parsePredictionArtifact(text: string): PredictionArtifact {
  const a = JSON.parse(text) as PredictionArtifact;
  if (a?.format !== FEATURIZER_FORMAT) throw new Error(`unsupported featurizer format ${String(a?.format)}`);
  return a;
}
