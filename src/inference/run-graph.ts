/**
 * Runs a model's ONNX graph (input `features` float32 [N,F]) and returns its outputs as plain
 * numbers with their shapes; nothing of ort leaks out. By default rows go through the graph in
 * chunks of GRAPH_CHUNK_ROWS: intermediate tensors (a one-hot expansion, distances to every
 * centroid) are several times the input, and onnxruntime's wasm memory never shrinks, so one run
 * over a whole file would leave the isolate that much bigger for good. A type whose graph has no
 * such tensors (a tree ensemble) runs whole (its module says so: ../model-types/contract).
 */

// The Tensor class only (no wasm): the same module the Worker's and the trainer's runtimes load.
import { type InferenceSession, Tensor as OrtTensor } from "onnxruntime-web/wasm";
import { GRAPH_CHUNK_ROWS } from "../core/limits";
import type { GraphOutput } from "../model-types/contract";

export interface GraphRunOptions {
  /** The outputs to fetch (default: every output of the graph). */
  outputs?: string[];
  /** Whether rows go through in chunks of GRAPH_CHUNK_ROWS (default) or all at once. */
  chunked?: boolean;
}

/** Zero rows return {} without calling ort. */
export async function runGraph(
  session: InferenceSession,
  matrix: Float32Array,
  numRows: number,
  numFeatures: number,
  options: GraphRunOptions = {},
): Promise<Record<string, GraphOutput>> {
  if (matrix.length !== numRows * numFeatures) throw new RangeError(`matrix has ${matrix.length} values, expected ${numRows} x ${numFeatures}`);
  const chunk = options.chunked === false ? numRows : GRAPH_CHUNK_ROWS;
  const result: Record<string, GraphOutput> = {};
  for (let start = 0; start < numRows; start += chunk) {
    const rows = Math.min(chunk, numRows - start);
    const input = new OrtTensor("float32", matrix.subarray(start * numFeatures, (start + rows) * numFeatures), [rows, numFeatures]);
    const out = options.outputs ? await session.run({ features: input }, options.outputs) : await session.run({ features: input });
    for (const [name, t] of Object.entries(out)) {
      const src = t.data as ArrayLike<number | bigint | boolean>;
      const width = src.length / rows;
      let o = result[name];
      if (!o) result[name] = o = { data: new Float64Array(numRows * width), dims: [numRows, ...t.dims.slice(1).map(Number)] };
      for (let i = 0; i < src.length; i++) o.data[start * width + i] = Number(src[i]);
    }
  }
  return result;
}
