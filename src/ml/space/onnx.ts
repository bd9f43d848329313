/**
 * ONNX stages of ./space, on the GraphBuilder, all in double:
 * - the features input (float32 [N,F], cast once);
 * - the encoder layout made dense: [N,D] blocks (standardized numeric value, one-hot level or
 *   "other" slot; 0 when the feature is missing) and [N,F] missing indicators;
 * - the standardized space (the blocks), the embedding (the encoder's MatMul/Add/Relu layers on
 *   [blocks | missing]) and the reconstruction error (the decoder, scored like the engine).
 * A feature is missing exactly when its value is NaN: the featurizer maps unseen and rare
 * categories to NaN, and every code it emits is a level or falls in the "other" slot (ssl/layout).
 */

import type { GraphBuilder } from "../onnx/graph";
import { DataType } from "../onnx/onnx-proto";
import { base64ToFloat32 } from "../ssl/base64";
import type { SslEncoder } from "../ssl/encoder";
import { compileLayout, type Layout, type SslFeature } from "../ssl/layout";
import { Net, type NetShape, paramCount } from "../ssl/mlp";

/** Standardized values are clipped to ±CLIP (as ssl/layout's readRow). */
const CLIP = 5;

/** Declares the graph input `features` float32 [N,F]; returns its double copy. */
export function addFeaturesInput(g: GraphBuilder, F: number): string {
  const x = g.input("features", DataType.FLOAT, ["N", F], "featurized float32 matrix (see featurizer.json)");
  return g.castToDouble(x);
}

/** The standardized space [N,D] of `x` (double [N,F] of the space's featurizer). */
export function addStandardizeStage(g: GraphBuilder, space: { layout: SslFeature[] }, x: string): string {
  return addLayoutStage(g, space.layout, x).blocks;
}

/** The encoder's embedding [N,E] of `x` (double [N,F] of the encoder's featurizer). */
export function addEmbeddingStage(g: GraphBuilder, encoder: SslEncoder, x: string): string {
  return addEncoder(g, encoder, x).z;
}

/** Per row [N]: mean squared reconstruction error over its present features (0 when none). */
export function addReconstructionErrorStage(g: GraphBuilder, encoder: SslEncoder, x: string): string {
  const { z, net, input } = addEncoder(g, encoder, x);
  const p = net.params;
  const { D, H, E } = net.shape;
  const h2 = g.op("Relu", [gemm(g, z, p.subarray(net.oW3, net.oW3 + H * E), [H, E], p.subarray(net.oB3, net.oB3 + H))]);
  const out = gemm(g, h2, p.subarray(net.oW4, net.oW4 + D * H), [D, H], p.subarray(net.oB4, net.oB4 + D));
  const diff = g.op("Sub", [out, input.blocks]);
  const scored = g.op("Mul", [g.op("Mul", [diff, diff]), input.presentSlots]);
  const axis1 = g.int64([1]);
  const rowErr = g.op("ReduceSum", [scored, axis1], [{ name: "keepdims", int: 0 }]);
  const present = g.op("Sub", [g.double([1]), input.missing]);
  const count = g.op("ReduceSum", [present, axis1], [{ name: "keepdims", int: 0 }]);
  return g.op("Div", [rowErr, g.op("Max", [count, g.double([1])])]);
}

interface LayoutValues {
  /** [N,D] dense inputs (0 where missing). */
  blocks: string;
  /** [N,F] 1 where the feature is missing. */
  missing: string;
  /** [N,D] 1 where the slot's feature is present. */
  presentSlots: string;
}

function addLayoutStage(g: GraphBuilder, features: SslFeature[], x: string): LayoutValues {
  const L = compileLayout(features);
  const { D, F } = L;
  const slotFeature = new Array<number>(D);
  const mean = new Float64Array(D);
  const invStd = new Float64Array(D).fill(1);
  const isNumeric = new Float64Array(D);
  const level = new Float64Array(D).fill(-1);
  const isLevel = new Float64Array(D);
  const isOther = new Float64Array(D);
  const sameFeatureLevels = new Float64Array(D * D); // [level slot d', other slot d]
  for (let j = 0; j < F; j++) {
    const o = L.offset[j];
    for (let k = 0; k < L.width[j]; k++) slotFeature[o + k] = j;
    const f = features[j];
    if (f.kind === "numeric") {
      mean[o] = L.mean[j];
      invStd[o] = L.invStd[j];
      isNumeric[o] = 1;
      continue;
    }
    f.levels.forEach((code, s) => {
      level[o + s] = code;
      isLevel[o + s] = 1;
    });
    if (f.other) {
      const other = o + f.levels.length;
      isOther[other] = 1;
      for (let s = 0; s < f.levels.length; s++) sameFeatureLevels[(o + s) * D + other] = 1;
    }
  }
  const nan = g.op("IsNaN", [x]);
  const missing = g.op("Cast", [nan], [{ name: "to", int: DataType.DOUBLE }]);
  const xz = g.op("Where", [nan, g.double([0]), x]);
  const slots = g.int64(slotFeature);
  const gathered = g.op("Gather", [xz, slots], [{ name: "axis", int: 1 }]);
  const presentSlots = g.op("Sub", [g.double([1]), g.op("Gather", [missing, slots], [{ name: "axis", int: 1 }])]);
  const standardized = g.op("Clip", [
    g.op("Mul", [g.op("Sub", [gathered, g.double(mean)]), g.double(invStd)]),
    g.double([-CLIP], []),
    g.double([CLIP], []),
  ]);
  let value = g.op("Mul", [standardized, g.double(isNumeric)]);
  if (isLevel.some((v) => v === 1)) {
    const eq = g.op("Cast", [g.op("Equal", [gathered, g.double(level)])], [{ name: "to", int: DataType.DOUBLE }]);
    const hot = g.op("Mul", [eq, g.double(isLevel)]);
    value = g.op("Add", [value, hot]);
    if (isOther.some((v) => v === 1)) {
      const matched = g.op("MatMul", [hot, g.double(sameFeatureLevels, [D, D])]);
      value = g.op("Add", [value, g.op("Mul", [g.op("Sub", [g.double([1]), matched]), g.double(isOther)])]);
    }
  }
  return { blocks: g.op("Mul", [value, presentSlots]), missing, presentSlots };
}

function addEncoder(g: GraphBuilder, encoder: SslEncoder, x: string): { z: string; net: Net; input: LayoutValues } {
  const L: Layout = compileLayout(encoder.features);
  const shape: NetShape = { D: L.D, F: L.F, H: encoder.hidden, E: encoder.embedding };
  const w = base64ToFloat32(encoder.weights, paramCount(shape));
  if (!w) throw new Error("stored encoder weights do not match its sizes");
  const net = new Net(shape, Float64Array.from(w));
  const p = net.params;
  const { D, F, H, E } = shape;
  const input = addLayoutStage(g, encoder.features, x);
  const dense = g.op("Concat", [input.blocks, input.missing], [{ name: "axis", int: 1 }]);
  // W1 is [inputs x H]; the other layers are [outputs x inputs] (ssl/mlp), hence transB there.
  const h1 = g.op("Relu", [
    g.op("Gemm", [dense, g.double(p.subarray(net.oW1, net.oW1 + (D + F) * H), [D + F, H]), g.double(p.subarray(net.oB1, net.oB1 + H))]),
  ]);
  const z = gemm(g, h1, p.subarray(net.oW2, net.oW2 + E * H), [E, H], p.subarray(net.oB2, net.oB2 + E));
  return { z, net, input };
}

/** a · Wᵀ + b for W stored [outputs x inputs]. */
function gemm(g: GraphBuilder, a: string, w: Float64Array, dims: [number, number], b: Float64Array): string {
  return g.op("Gemm", [a, g.double(w, dims), g.double(b)], [{ name: "transB", int: 1 }]);
}
