/**
 * The nearest-center stage of the clustering graph, on a double [N,D] input:
 *   d²[N,K] = ReduceSumSquare(x)[N,1] + MatMul(x, -2·Cᵀ)[N,K] + |c|²[K]
 *   cluster  = ArgMin(d², axis 1) int64 [N]   (the first index on a tie, as the engine)
 *   distance = Sqrt(Max(ReduceMin(d², axis 1), 0)) double [N]
 * The expansion differs from the engine's direct Σ(x - c)² by rounding only (~1e-12 relative to
 * |x|²); Max(·, 0) keeps the rounding of a row sitting on its center from giving NaN.
 */
import type { GraphBuilder } from "../onnx/graph";

export function addNearestCenterStage(
  g: GraphBuilder,
  x: string,
  centers: Float64Array,
  k: number,
  d: number,
): { cluster: string; distance: string } {
  const minus2T = new Float64Array(d * k);
  const norms = new Float64Array(k);
  for (let c = 0; c < k; c++) {
    for (let t = 0; t < d; t++) {
      const v = centers[c * d + t];
      minus2T[t * k + c] = -2 * v;
      norms[c] += v * v;
    }
  }
  const axis1 = g.int64([1]);
  const xx = g.op("ReduceSumSquare", [x, axis1], [{ name: "keepdims", int: 1 }]);
  const cross = g.op("MatMul", [x, g.double(minus2T, [d, k])]);
  const d2 = g.op("Add", [g.op("Add", [cross, xx]), g.double(norms, [k])]);
  const cluster = g.op(
    "ArgMin",
    [d2],
    [
      { name: "axis", int: 1 },
      { name: "keepdims", int: 0 },
      { name: "select_last_index", int: 0 },
    ],
  );
  const nearest = g.op("ReduceMin", [d2, axis1], [{ name: "keepdims", int: 0 }]);
  const distance = g.op("Sqrt", [g.op("Max", [nearest, g.double([0], [])])]);
  return { cluster, distance };
}
