/**
 * The contract between the engine's non-prediction model types (anomaly, embedding, clustering,
 * factors, search, and causal, whose label column is its outcome) and the trainer that runs them:
 * what a type's trainer takes, the progress it reports and the model it hands back, so that one
 * runner trains them all and one inference path serves them. It sits in a folder of its own,
 * below ml/unsupervised and ml/causal, which both fulfil it. It names no model type: the list of
 * types is the product's (`modelType` is a plain string here).
 *
 * The ONNX graph's input is always `features` float32 [N, F]: the matrix of `featurizer` (the
 * same featurizer rules as prediction: extra columns ignored, missing ones and unseen categories
 * NaN). Its outputs are the type's (see each type's module); `head` is the JSON the Worker needs
 * besides the graph to shape the answer (cluster descriptions, the search index's ids, ...).
 */
import type { FeaturizerSpec } from "../featurize";
import type { ParallelExecutor } from "../parallel";
import type { Representation } from "../representation/representation";

/**
 * Progress of a type's training after the shared representation exists: `ssl` while the model
 * trains an encoder of its own (embedding with other dimensions, an embedding space restricted by
 * input_columns), with that encoder's losses; `fit` for the type's own algorithm.
 */
export type FitStep =
  | { phase: "ssl"; step: number; totalSteps: number; trainLoss: number; valLoss: number | null }
  | { phase: "fit"; step: number; totalSteps: number };

/** Every type's trainer: `train<Type>Steps(frame, opts): Generator<FitStep, UnsupervisedModel>`. */
export interface UnsupervisedTrainOptions<P> {
  /** The dataset version's shared representation (already built; it has an encoder). */
  representation: Representation;
  /** Restricts the features to these source columns (null/undefined: every usable column). */
  inputColumns?: string[] | null;
  /** The label column: causal models' outcome; the other types have none. */
  labelColumn?: string | null;
  /** The type's parameters, already validated for range by the API (engine defaults fill the rest). */
  params: P;
  /** The host's threads (the trainer's): clustering's k-means and the search index's exact searches use them on large tables. */
  parallel?: ParallelExecutor;
}

export interface UnsupervisedModel {
  /** The type that trained it (the product's name for it). */
  modelType: string;
  /** Turns a table into the graph's `features` input. */
  featurizer: FeaturizerSpec;
  /** ONNX ModelProto bytes; input `features` float32 [N, F]. */
  onnx: Uint8Array;
  /** JSON the Worker needs besides the graph to shape inference output. */
  head: Record<string, unknown>;
  /** The interface's metric keys only (clustering: n_clusters, silhouette_score); {} otherwise. */
  metrics: Record<string, number | null>;
  /** Type-specific fields of the training job's `output` (anomalous_ids, threshold, ...). */
  output: Record<string, unknown>;
  /** What the model version shows about itself (loadings, cluster sizes and centroids, ...). */
  summary: Record<string, unknown>;
  /** Extra artifact files besides model.onnx and featurizer.json (the search index). */
  files?: { name: string; bytes: Uint8Array }[];
}
