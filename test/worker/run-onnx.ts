/**
 * Runs a GBDT model exported by src/ml/onnx/export.ts on a featurized float32 matrix.
 *
 * The model's input is `features` float32 [N,F]; a regressor outputs `prediction` double [N,1],
 * a classifier `probabilities` float [N,C], `label` int64 [N] (index into the class labels) and
 * `raw_score` (not fetched here). Results are plain typed arrays; nothing of ort leaks out.
 * The tests run GBDT graphs with it; the service runs every model's graph through
 * src/inference/run-graph.ts.
 */
// The Tensor class only (no wasm): the same module the Worker's and the trainer's runtimes load.
import { type InferenceSession, Tensor as OrtTensor } from "onnxruntime-web/wasm";

export interface GbdtOnnxResult {
  /** Regression: one value per row; null for classifiers. */
  prediction: Float64Array | null;
  /** Classification: row-major [N,C] class probabilities; null for regressors. */
  probabilities: Float32Array | null;
  /** Classification: index into the model's class labels per row; null for regressors. */
  labelIndex: Int32Array | null;
}

/** Which kind of model the session holds, from its output names. */
function gbdtOnnxKind(session: Pick<InferenceSession, "outputNames">): "regression" | "classification" {
  const names = session.outputNames;
  if (names.includes("prediction")) return "regression";
  if (names.includes("probabilities") && names.includes("label")) return "classification";
  throw new Error(`not a GBDT ONNX model: outputs ${JSON.stringify(names)}`);
}

/**
 * @param matrix row-major [numRows x numFeatures] (a subarray view is fine)
 * Zero rows return empty arrays without calling ort.
 */
export async function runGbdtOnnx(session: InferenceSession, matrix: Float32Array, numRows: number, numFeatures: number): Promise<GbdtOnnxResult> {
  if (!Number.isInteger(numRows) || numRows < 0 || !Number.isInteger(numFeatures) || numFeatures < 1) {
    throw new RangeError(`invalid matrix shape ${numRows} x ${numFeatures}`);
  }
  if (matrix.length !== numRows * numFeatures) {
    throw new RangeError(`matrix has ${matrix.length} values, expected ${numRows} x ${numFeatures}`);
  }
  const kind = gbdtOnnxKind(session);
  if (numRows === 0) {
    return kind === "regression"
      ? { prediction: new Float64Array(0), probabilities: null, labelIndex: null }
      : { prediction: null, probabilities: new Float32Array(0), labelIndex: new Int32Array(0) };
  }

  const features = new OrtTensor("float32", matrix, [numRows, numFeatures]);
  if (kind === "regression") {
    const out = await session.run({ features }, ["prediction"]);
    const t = out.prediction;
    const prediction = t.data instanceof Float64Array ? t.data : Float64Array.from(t.data as ArrayLike<number>);
    if (prediction.length !== numRows) throw new Error(`prediction has ${prediction.length} values for ${numRows} rows`);
    return { prediction, probabilities: null, labelIndex: null };
  }

  const out = await session.run({ features }, ["probabilities", "label"]);
  const p = out.probabilities;
  const l = out.label;
  const probabilities = p.data instanceof Float32Array ? p.data : Float32Array.from(p.data as ArrayLike<number>);
  const labels = l.data as ArrayLike<bigint | number>;
  const labelIndex = new Int32Array(numRows);
  if (labels.length !== numRows) throw new Error(`label has ${labels.length} values for ${numRows} rows`);
  for (let i = 0; i < numRows; i++) labelIndex[i] = Number(labels[i]);
  return { prediction: null, probabilities, labelIndex };
}
