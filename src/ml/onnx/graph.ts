/**
 * A small builder for the ONNX graphs of the non-tree models (and the input stages they share):
 * nodes are added with `op`, constants with `double` / `int64`, and every intermediate value gets
 * a unique name from the builder, so stages written separately (input layout, encoder, model
 * head) compose without name clashes. `finish` encodes the ModelProto.
 *
 * Convention: computation is in double (inputs are cast once), so the graph matches the engine,
 * which computes in float64, to ~1e-12 rather than float32's ~1e-6.
 */
import {
  type Attribute,
  DataType,
  type DataTypeCode,
  doubleTensor,
  encodeModel,
  int64Tensor,
  type Node,
  type Tensor,
  type ValueInfo,
} from "./onnx-proto";

const ONNX_OPSET = 21;
const ONNX_ML_OPSET = 5;
const IR_VERSION = 10;
export const ML_DOMAIN = "ai.onnx.ml";

export class GraphBuilder {
  private readonly nodes: Node[] = [];
  private readonly initializers: Tensor[] = [];
  private readonly inputs: ValueInfo[] = [];
  private readonly outputs: ValueInfo[] = [];
  private counter = 0;

  /** A fresh value name with a readable prefix. */
  name(prefix: string): string {
    return `${prefix}_${this.counter++}`;
  }

  input(name: string, elemType: DataTypeCode, shape: (number | string)[], doc?: string): string {
    this.inputs.push({ name, elemType, shape, doc });
    return name;
  }

  /** Declares `value` a graph output under `name` (an Identity node when the names differ). */
  output(value: string, name: string, elemType: DataTypeCode, shape: (number | string)[], doc?: string): void {
    if (value !== name) this.nodes.push({ opType: "Identity", inputs: [value], outputs: [name] });
    this.outputs.push({ name, elemType, shape, doc });
  }

  /** A double constant (`dims` default: 1-D of its length). */
  double(values: ArrayLike<number>, dims?: number[], prefix = "c"): string {
    const name = this.name(prefix);
    this.initializers.push(doubleTensor(values, dims ?? [values.length], name));
    return name;
  }

  /** An int64 constant (indices, axes, shapes). */
  int64(values: ArrayLike<number>, dims?: number[], prefix = "i"): string {
    const name = this.name(prefix);
    this.initializers.push(int64Tensor(values, dims ?? [values.length], name));
    return name;
  }

  /** Adds one node with a single output and returns that output's name. */
  op(opType: string, inputs: string[], attributes: Attribute[] = [], opts: { domain?: string; prefix?: string } = {}): string {
    const out = this.name(opts.prefix ?? opType.toLowerCase());
    this.nodes.push({ opType, inputs, outputs: [out], attributes, domain: opts.domain });
    return out;
  }

  /** Adds one node with several outputs. */
  opMulti(opType: string, inputs: string[], outputCount: number, attributes: Attribute[] = [], domain?: string): string[] {
    const outs = Array.from({ length: outputCount }, () => this.name(opType.toLowerCase()));
    this.nodes.push({ opType, inputs, outputs: outs, attributes, domain });
    return outs;
  }

  /** Cast to double. */
  castToDouble(value: string): string {
    return this.op("Cast", [value], [{ name: "to", int: DataType.DOUBLE }]);
  }

  finish(opts: { name: string; docString: string; metadata: Record<string, string>; usesMl?: boolean }): Uint8Array {
    const opsets = [{ domain: "", version: ONNX_OPSET }];
    if (opts.usesMl) opsets.push({ domain: ML_DOMAIN, version: ONNX_ML_OPSET });
    return encodeModel({
      irVersion: IR_VERSION,
      opsets,
      producerName: "tabular-ml-service",
      producerVersion: "1",
      docString: opts.docString,
      graph: { name: opts.name, nodes: this.nodes, inputs: this.inputs, outputs: this.outputs, initializers: this.initializers },
      metadata: opts.metadata,
    });
  }
}
