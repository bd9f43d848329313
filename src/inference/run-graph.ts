/**
 * Runs a non-prediction model's ONNX graph (input `features` float32 [N,F]) and returns every
 * output as plain numbers with its shape; nothing of ort leaks out. Rows go through the graph in
 * chunks of GRAPH_CHUNK_ROWS: its intermediate tensors (a one-hot expansion, distances to every
 * centroid) are several times the input, and onnxruntime's wasm memory never shrinks, so one run
 * over a whole file would leave the isolate that much bigger for good.
 */

// The Tensor class only (no wasm): the same module the Worker's and the trainer's runtimes load.
import { type InferenceSession, Tensor as OrtTensor } from "onnxruntime-web/wasm";
import { GRAPH_CHUNK_ROWS } from "../core/limits";

export interface GraphOutput {
  /** Row-major values (int64 and bool outputs as numbers: 0/1 for bool). */
  data: Float64Array;
  dims: number[];
}

/** Zero rows return {} without calling ort. */
export async function runGraph(
  session: InferenceSession,
  matrix: Float32Array,
  numRows: number,
  numFeatures: number,
): Promise<Record<string, GraphOutput>> {
  if (matrix.length !== numRows * numFeatures) throw new RangeError(`matrix has ${matrix.length} values, expected ${numRows} x ${numFeatures}`);
  const result: Record<string, GraphOutput> = {};
  for (let start = 0; start < numRows; start += GRAPH_CHUNK_ROWS) {
    const rows = Math.min(GRAPH_CHUNK_ROWS, numRows - start);
    const input = new OrtTensor("float32", matrix.subarray(start * numFeatures, (start + rows) * numFeatures), [rows, numFeatures]);
    const out = await session.run({ features: input });
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
