/**
 * A clustering model's space as its explanations use it: featurized rows mapped the way the model
 * maps them (standardized features, or the encoder's embedding — the functions training uses),
 * the row's own cluster by the engine's nearest-centre scan (the first on a tie, as the ONNX
 * ArgMin), the nearest OTHER cluster, and the margin between them.
 */
import type { FeaturizerSpec } from "../featurize";
import { assignNearest, dist2 } from "../kmeans/centers";
import { embed, type StandardSpace, standardize } from "../space/space";
import { compileLayout, type Layout } from "../ssl/layout";
import type { ClusteringExplainer } from "./clustering-file";

export interface ClusterSpace {
  ex: ClusteringExplainer;
  standard: StandardSpace;
  /** The standardized layout in the form the math uses (offsets of each feature's dims). */
  layout: Layout;
}

export function clusterSpace(ex: ClusteringExplainer, featurizer: FeaturizerSpec): ClusterSpace {
  const layout = compileLayout(ex.layout);
  return { ex, layout, standard: { featurizer, layout: ex.layout, columnNames: [], D: layout.D } };
}

/** Rows of a featurized matrix in the model's space: [n x dims]. */
export function toSpace(s: ClusterSpace, data: Float32Array, n: number): Float64Array {
  const m = { data, numRows: n, numFeatures: s.layout.F };
  return s.ex.encoder ? embed(s.ex.encoder, m) : standardize(s.standard, m);
}

/** The engine's cluster of each row of X. */
export function clustersOf(s: ClusterSpace, X: Float64Array, n: number): Int32Array {
  return assignNearest(X, n, s.ex.dims, s.ex.centroids, s.ex.k).labels;
}

export interface Placement {
  own: number;
  other: number;
  /** Distances to the own and the nearest other centre. */
  dOwn: number;
  dOther: number;
}

/** Row i's cluster and its runner-up. */
export function placementOf(s: ClusterSpace, X: Float64Array, i: number): Placement {
  const { centroids, k, dims } = s.ex;
  const own = assignNearest(X.subarray(i * dims, (i + 1) * dims), 1, dims, centroids, k).labels[0];
  let other = -1;
  let best = Infinity;
  for (let c = 0; c < k; c++) {
    if (c === own) continue;
    const v = dist2(X, i, centroids, c, dims);
    if (v < best) {
      best = v;
      other = c;
    }
  }
  return { own, other, dOwn: Math.sqrt(dist2(X, i, centroids, own, dims)), dOther: Math.sqrt(best) };
}

/** Margin of row i between two given clusters: distance to `other` minus distance to `own`. */
export function marginOf(s: ClusterSpace, X: Float64Array, i: number, own: number, other: number): number {
  const { centroids, dims } = s.ex;
  return Math.sqrt(dist2(X, i, centroids, other, dims)) - Math.sqrt(dist2(X, i, centroids, own, dims));
}
