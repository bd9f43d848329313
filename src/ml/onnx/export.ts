/**
 * GbdtModel -> ONNX ModelProto bytes.
 *
 * Graph (N rows, F features, K = numOutputs):
 *   features float[N,F] -Cast(double)-> TreeEnsemble (ai.onnx.ml v5, double) -Add(baseScore)-> raw score
 *   regression:     prediction   double[N,1]   (= raw score)
 *   binary:         probabilities float[N,2]  = [1 - sigmoid(raw), sigmoid(raw)]
 *   multiclass:     probabilities float[N,K]  = softmax(raw)
 *   classification: label int64[N] (ArgMax of the probabilities), raw_score double[N,K]
 * Everything up to the probabilities is computed in double so the output matches the engine to
 * ~1e-12 even for large regression targets; the regression output stays double for that reason,
 * probabilities are cast to float (error <= 6e-8) because consumers expect float.
 *
 * Metadata (featurizer-independent): format, objective, num_features, num_outputs,
 * feature_names (JSON), class_labels (JSON, classification), base_score (JSON), outputs.
 */
import type { GbdtModel } from "../gbdt/model";
import { DataType, doubleTensor, encodeModel, type Node, type ValueInfo } from "./onnx-proto";
import { treeEnsemble } from "./tree-ensemble";

const ONNX_OPSET = 21; // default domain; ai.onnx.ml v5 ships with opset 21 (ONNX 1.16)
const ONNX_ML_OPSET = 5;
const IR_VERSION = 10;
const ML = "ai.onnx.ml";

export interface OnnxExportOptions {
  /** Graph name (defaults to "gbdt"). */
  name?: string;
  /** Extra metadata_props entries (e.g. featurizer description), merged after the built-in ones. */
  metadata?: Record<string, string>;
}

export function exportGbdtToOnnx(model: GbdtModel, options: OnnxExportOptions = {}): Uint8Array {
  const K = model.numOutputs;
  const classification = model.objective !== "regression";
  const numClasses = model.objective === "binary" ? 2 : K;
  const rawName = classification ? "raw_score" : "prediction";

  const { attributes, inputShift } = treeEnsemble(model);
  const nodes: Node[] = [{ opType: "Cast", inputs: ["features"], outputs: ["features_f64"], attributes: [{ name: "to", int: DataType.DOUBLE }] }];
  const initializers = [doubleTensor(model.baseScore, [K], "base_score")];
  let treeInput = "features_f64";
  if (inputShift) {
    // categorical codes + 1 (./tree-ensemble)
    initializers.push(doubleTensor(inputShift, [model.numFeatures], "category_shift"));
    nodes.push({ opType: "Add", inputs: ["features_f64", "category_shift"], outputs: ["features_shifted"] });
    treeInput = "features_shifted";
  }
  nodes.push(
    { opType: "TreeEnsemble", domain: ML, inputs: [treeInput], outputs: ["tree_sum"], attributes },
    { opType: "Add", inputs: ["tree_sum", "base_score"], outputs: [rawName] },
  );
  const outputs: ValueInfo[] = [];

  if (!classification) {
    outputs.push({ name: "prediction", elemType: DataType.DOUBLE, shape: ["N", 1] });
  } else {
    if (model.objective === "binary") {
      initializers.push(doubleTensor([1], [1], "one"));
      nodes.push(
        { opType: "Sigmoid", inputs: [rawName], outputs: ["p1"] },
        { opType: "Sub", inputs: ["one", "p1"], outputs: ["p0"] },
        { opType: "Concat", inputs: ["p0", "p1"], outputs: ["probabilities_f64"], attributes: [{ name: "axis", int: 1 }] },
      );
    } else {
      nodes.push({ opType: "Softmax", inputs: [rawName], outputs: ["probabilities_f64"], attributes: [{ name: "axis", int: 1 }] });
    }
    nodes.push(
      { opType: "Cast", inputs: ["probabilities_f64"], outputs: ["probabilities"], attributes: [{ name: "to", int: DataType.FLOAT }] },
      {
        opType: "ArgMax",
        inputs: ["probabilities_f64"],
        outputs: ["label"],
        attributes: [
          { name: "axis", int: 1 },
          { name: "keepdims", int: 0 },
        ],
      },
    );
    outputs.push(
      { name: "probabilities", elemType: DataType.FLOAT, shape: ["N", numClasses] },
      { name: "label", elemType: DataType.INT64, shape: ["N"], doc: "index into class_labels" },
      { name: "raw_score", elemType: DataType.DOUBLE, shape: ["N", K], doc: "before sigmoid/softmax" },
    );
  }

  const metadata: Record<string, string> = {
    format: model.format,
    objective: model.objective,
    num_features: String(model.numFeatures),
    num_outputs: String(K),
    feature_names: JSON.stringify(model.featureNames),
    base_score: JSON.stringify(model.baseScore),
    outputs: JSON.stringify(outputs.map((o) => o.name)),
    ...(classification ? { class_labels: JSON.stringify(model.classes ?? range(numClasses).map(String)) } : {}),
    ...options.metadata,
  };

  return encodeModel({
    irVersion: IR_VERSION,
    opsets: [
      { domain: "", version: ONNX_OPSET },
      { domain: ML, version: ONNX_ML_OPSET },
    ],
    producerName: "tabular-ml-service",
    producerVersion: "1",
    docString: `gradient-boosted trees (${model.objective}, ${model.trees.length} trees)`,
    graph: {
      name: options.name ?? "gbdt",
      nodes,
      inputs: [{ name: "features", elemType: DataType.FLOAT, shape: ["N", model.numFeatures], doc: "featurized float32 matrix" }],
      outputs,
      initializers,
    },
    metadata,
  });
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}
