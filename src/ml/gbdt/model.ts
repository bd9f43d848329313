/**
 * The trained gradient-boosting model in plain, JSON-serializable form. The trainer writes it,
 * the ONNX exporter and TreeSHAP read it. Features are the columns of the featurized float32
 * matrix (see featurize); all comparisons are made on float32 values.
 *
 * Node layout per tree (arrays of equal length = number of internal nodes):
 * - child index >= 0 is an internal node; a negative child c is leaf number ~c (i.e. -c - 1).
 * - numeric split: go left when x <= threshold (threshold is a float32-representable number);
 * - categorical split: go left when the category code (an integer feature value) is in
 *   `leftCategories[node]`; unseen codes go right;
 * - missing (NaN): go left when `defaultLeft[node]` is 1, else right.
 * A tree with no split has zero internal nodes and one leaf (root is leaf 0).
 */
export interface Tree {
  splitFeature: number[];
  threshold: number[];
  /** 1 = categorical split on `leftCategories[node]`, 0 = numeric split on `threshold`. */
  isCategorical: number[];
  leftCategories: number[][];
  defaultLeft: number[];
  left: number[];
  right: number[];
  /** Sum of hessians of the training rows reaching each internal node (TreeSHAP cover). */
  internalCover: number[];
  /** Gain of each split (feature importance). */
  gain: number[];
  leafValue: number[];
  leafCover: number[];
}

/** A tree with no node yet, for a builder to push nodes into. */
export function emptyTree(): Tree {
  return {
    splitFeature: [],
    threshold: [],
    isCategorical: [],
    leftCategories: [],
    defaultLeft: [],
    left: [],
    right: [],
    internalCover: [],
    gain: [],
    leafValue: [],
    leafCover: [],
  };
}

export type Objective = "regression" | "binary" | "multiclass";

export interface GbdtModel {
  format: "gbdt-v1";
  objective: Objective;
  /** Number of raw outputs: 1 for regression and binary, number of classes for multiclass. */
  numOutputs: number;
  /** Raw score before any tree, one per output. */
  baseScore: number[];
  /** trees[round * numOutputs + output]: the tree of that round for that output. */
  trees: Tree[];
  numFeatures: number;
  featureNames: string[];
  /** Class labels in output order (classification only), as strings. */
  classes?: string[];
  bestIteration: number;
}
