/**
 * The hyperparameters a model search explores, each mapped from a unit interval so that the
 * sampler (./sampler) works in [0, 1]^d: learning rate, L2 and the leaf minimum on a log scale
 * (their effect is multiplicative), leaves on a log scale too, the depth either unlimited or
 * 3..12, the row and feature fractions linearly. Rounds are not searched: early stopping picks them.
 * A parameter the request gives stays fixed: it is not a dimension.
 */
import type { PredictionParams } from "../params";

/** The searched parameters (a subset of the request's). */
type SearchedKey = "learning_rate" | "num_leaves" | "max_depth" | "min_data_in_leaf" | "l2" | "subsample" | "feature_fraction";

/** One point of the space: the searched parameters' values. */
export type SearchConfig = Partial<Pick<PredictionParams, SearchedKey>>;

interface Dimension {
  key: SearchedKey;
  /** Unit value → parameter value. */
  value(u: number): number;
}

const logRange = (lo: number, hi: number) => (u: number) => lo * (hi / lo) ** u;
const logInt = (lo: number, hi: number) => (u: number) => Math.round(logRange(lo, hi)(u));
const linear = (lo: number, hi: number) => (u: number) => lo + (hi - lo) * u;

/** The ranges, wide enough for the shared benchmark tables' tuned optima (bench/search). */
const DIMENSIONS: readonly Dimension[] = [
  { key: "learning_rate", value: logRange(0.02, 0.5) },
  { key: "num_leaves", value: logInt(4, 128) },
  // half the space unlimited (leaf-wise growth bounded by the leaves), half a depth of 3..12
  { key: "max_depth", value: (u) => (u < 0.5 ? -1 : 3 + Math.min(9, Math.floor((u - 0.5) * 20))) },
  { key: "min_data_in_leaf", value: logInt(2, 100) },
  { key: "l2", value: logRange(1e-3, 30) },
  { key: "subsample", value: linear(0.5, 1) },
  { key: "feature_fraction", value: linear(0.4, 1) },
];

export interface SearchSpace {
  /** The dimensions searched (those the request leaves free), in a fixed order. */
  keys: SearchedKey[];
  /** The parameter values of a unit point (one coordinate per key). */
  config(unit: ArrayLike<number>): SearchConfig;
}

/** The space over the parameters that `fixed` (the request's params) does not set. */
export function searchSpace(fixed: PredictionParams): SearchSpace {
  const dims = DIMENSIONS.filter((d) => fixed[d.key] === undefined);
  return {
    keys: dims.map((d) => d.key),
    config(unit) {
      const c: SearchConfig = {};
      dims.forEach((d, i) => {
        c[d.key] = d.value(Math.min(1, Math.max(0, unit[i])));
      });
      return c;
    },
  };
}
