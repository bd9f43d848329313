/**
 * An isolation forest as plain JSON (the typed arrays as base64), for what only the engine reads
 * back: explanations walk the trees with their sub-sample sizes, which the ONNX TreeEnsemble does
 * not carry (it holds the leaves' path lengths only).
 *
 * Path lengths are not stored: they are recomputed on reading as depth + c(size), the very
 * expression training used, so the read forest scores bit-identically.
 */
import { base64ToBytes, base64ToFloat32, base64ToInt32, bytesToBase64, float32ToBase64, int32ToBase64 } from "../ssl/base64";
import type { IsolationForest } from "./forest";
import { averagePathLength } from "./path-length";

export interface StoredForest {
  numFeatures: number;
  numTrees: number;
  sampleSize: number;
  nodes: number;
  roots: string;
  feature: string;
  threshold: string;
  left: string;
  nanLeft: string;
  size: string;
}

export function storeForest(f: IsolationForest): StoredForest {
  return {
    numFeatures: f.numFeatures,
    numTrees: f.numTrees,
    sampleSize: f.sampleSize,
    nodes: f.feature.length,
    roots: int32ToBase64(f.roots),
    feature: int32ToBase64(f.feature),
    threshold: float32ToBase64(f.threshold),
    left: int32ToBase64(f.left),
    nanLeft: bytesToBase64(f.nanLeft),
    size: int32ToBase64(f.size),
  };
}

/** The forest back, or null when the stored form is inconsistent (sizes, child indices). */
export function readForest(s: StoredForest): IsolationForest | null {
  if (!s || typeof s !== "object" || !Number.isInteger(s.nodes) || !(s.nodes > 0)) return null;
  const n = s.nodes;
  const roots = base64ToInt32(s.roots, s.numTrees);
  const feature = base64ToInt32(s.feature, n);
  const threshold = base64ToFloat32(s.threshold, n);
  const left = base64ToInt32(s.left, n);
  const nanLeft = base64ToBytes(s.nanLeft);
  const size = base64ToInt32(s.size, n);
  if (!roots || !feature || !threshold || !left || !nanLeft || nanLeft.length !== n || !size) return null;
  const pathLength = new Float64Array(n);
  // depth-first from each root; a malformed child index ends the read instead of looping
  const stack: number[] = [];
  for (const root of roots) {
    if (!(root >= 0 && root < n)) return null;
    stack.push(root, 0);
    while (stack.length) {
      const depth = stack.pop()!;
      const nd = stack.pop()!;
      if (feature[nd] < 0) {
        pathLength[nd] = depth + averagePathLength(size[nd]);
        continue;
      }
      if (feature[nd] >= s.numFeatures || !(left[nd] > nd && left[nd] + 1 < n)) return null;
      stack.push(left[nd], depth + 1, left[nd] + 1, depth + 1);
    }
  }
  return { numFeatures: s.numFeatures, numTrees: s.numTrees, sampleSize: s.sampleSize, roots, feature, threshold, left, nanLeft, pathLength, size };
}
