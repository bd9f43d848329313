/**
 * The featurizer file that travels with every model's ONNX graph (`featurizer.json`): what turns
 * a table into the graph's `features` input and the graph's outputs back into the interface's
 * columns. Inference in the Worker reads it; users download it with the model. Two formats:
 * prediction models (task, label, classes) and the non-prediction types (a `head` of what the
 * Worker needs besides the graph: cluster descriptions, search settings, ...).
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

export const UNSUPERVISED_FORMAT = "unsupervised-featurizer-v1";

export interface UnsupervisedArtifact {
  format: typeof UNSUPERVISED_FORMAT;
  /** Any type but prediction. */
  model_type: string;
  featurizer: FeaturizerSpec;
  head: Record<string, unknown>;
  onnx: { input: "features"; num_features: number };
  /** Extra files of the version (search: index.bin). */
  files: string[];
  service_runtime_version: string;
}

export type ModelArtifact = PredictionArtifact | UnsupervisedArtifact;

export function parseModelArtifact(text: string): ModelArtifact {
  const a = JSON.parse(text) as { format?: unknown } | null;
  if (a?.format !== FEATURIZER_FORMAT && a?.format !== UNSUPERVISED_FORMAT) throw new Error(`unsupported featurizer format ${String(a?.format)}`);
  return a as ModelArtifact;
}
