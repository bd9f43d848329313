/**
 * Runs a non-prediction model's ONNX graph (input `features` float32 [N,F]) and returns every
 * output as plain numbers with its shape; nothing of ort leaks out.
 */
import type { InferenceSession } from "./ort-runtime";
import { OrtTensor } from "./ort-runtime";

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
  if (numRows === 0) return {};
  const out = await session.run({ features: new OrtTensor("float32", matrix, [numRows, numFeatures]) });
  const result: Record<string, GraphOutput> = {};
  for (const [name, t] of Object.entries(out)) {
    const src = t.data as ArrayLike<number | bigint | boolean>;
    const data = new Float64Array(src.length);
    for (let i = 0; i < src.length; i++) data[i] = Number(src[i]);
    result[name] = { data, dims: t.dims.map(Number) };
  }
  return result;
}
