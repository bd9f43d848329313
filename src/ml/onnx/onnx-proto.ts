/**
 * The few ONNX messages the exporter writes, encoded with field numbers from onnx/onnx.proto3
 * (ModelProto, GraphProto, NodeProto, AttributeProto, TensorProto, ValueInfoProto,
 * OperatorSetIdProto, StringStringEntryProto). Only what tree ensembles need; no reading.
 */
import { ProtoWriter } from "./protobuf";

/** TensorProto.DataType values used here. */
export const DataType = { FLOAT: 1, UINT8: 2, INT64: 7, BOOL: 9, DOUBLE: 11 } as const;
export type DataTypeCode = (typeof DataType)[keyof typeof DataType];

/** AttributeProto.AttributeType values used here. */
const AttrType = { FLOAT: 1, INT: 2, STRING: 3, TENSOR: 4, INTS: 7 } as const;

export interface Tensor {
  name?: string;
  dataType: DataTypeCode;
  dims: number[];
  /** Little-endian element bytes (TensorProto.raw_data). */
  raw: Uint8Array;
}

export type Attribute =
  | { name: string; int: number }
  | { name: string; ints: ArrayLike<number> }
  | { name: string; float: number }
  | { name: string; string: string }
  | { name: string; tensor: Tensor };

export interface Node {
  opType: string;
  inputs: string[];
  outputs: string[];
  name?: string;
  domain?: string;
  attributes?: Attribute[];
}

/** A tensor-typed graph input or output; string dims are symbolic (e.g. "N"). */
export interface ValueInfo {
  name: string;
  elemType: DataTypeCode;
  shape: (number | string)[];
  doc?: string;
}

export interface Model {
  irVersion: number;
  opsets: { domain: string; version: number }[];
  producerName: string;
  producerVersion: string;
  docString?: string;
  graph: {
    name: string;
    nodes: Node[];
    inputs: ValueInfo[];
    outputs: ValueInfo[];
    initializers: Tensor[];
  };
  metadata: Record<string, string>;
}

// ---- tensor constructors (explicit little-endian via DataView, whatever the host) ----

export function doubleTensor(values: ArrayLike<number>, dims: number[] = [values.length], name?: string): Tensor {
  const raw = new Uint8Array(values.length * 8);
  const view = new DataView(raw.buffer);
  for (let i = 0; i < values.length; i++) view.setFloat64(i * 8, values[i], true);
  return { name, dataType: DataType.DOUBLE, dims, raw };
}

export function uint8Tensor(values: ArrayLike<number>, dims: number[] = [values.length], name?: string): Tensor {
  return { name, dataType: DataType.UINT8, dims, raw: Uint8Array.from(values as ArrayLike<number>) };
}

// ---- encoders ----

function writeTensor(w: ProtoWriter, t: Tensor): void {
  for (const d of t.dims) w.int(1, d); // dims (int64, unpacked is also valid for parsers)
  w.int(2, t.dataType);
  if (t.name) w.string(8, t.name);
  w.bytes(9, t.raw);
}

function writeAttribute(w: ProtoWriter, a: Attribute): void {
  w.string(1, a.name);
  if ("int" in a) w.int(3, a.int).int(20, AttrType.INT);
  else if ("ints" in a) w.packedInts(8, a.ints).int(20, AttrType.INTS);
  else if ("float" in a) w.float(2, a.float).int(20, AttrType.FLOAT);
  else if ("string" in a) w.string(4, a.string).int(20, AttrType.STRING);
  else w.message(5, (t) => writeTensor(t, a.tensor)).int(20, AttrType.TENSOR);
}

function writeNode(w: ProtoWriter, n: Node): void {
  for (const i of n.inputs) w.string(1, i);
  for (const o of n.outputs) w.string(2, o);
  if (n.name) w.string(3, n.name);
  w.string(4, n.opType);
  for (const a of n.attributes ?? []) w.message(5, (m) => writeAttribute(m, a));
  if (n.domain) w.string(7, n.domain);
}

function writeValueInfo(w: ProtoWriter, v: ValueInfo): void {
  w.string(1, v.name);
  // TypeProto.tensor_type(1) -> { elem_type(1), shape(2) -> { dim(1) -> { dim_value(1) | dim_param(2) } } }
  w.message(2, (type) =>
    type.message(1, (tensor) => {
      tensor.int(1, v.elemType);
      tensor.message(2, (shape) => {
        for (const d of v.shape) shape.message(1, (dim) => (typeof d === "number" ? dim.int(1, d) : dim.string(2, d)));
      });
    }),
  );
  if (v.doc) w.string(3, v.doc);
}

export function encodeModel(m: Model): Uint8Array {
  const w = new ProtoWriter();
  w.int(1, m.irVersion);
  w.string(2, m.producerName);
  w.string(3, m.producerVersion);
  if (m.docString) w.string(6, m.docString);
  w.message(7, (g) => {
    for (const n of m.graph.nodes) g.message(1, (x) => writeNode(x, n));
    g.string(2, m.graph.name);
    for (const t of m.graph.initializers) g.message(5, (x) => writeTensor(x, t));
    for (const v of m.graph.inputs) g.message(11, (x) => writeValueInfo(x, v));
    for (const v of m.graph.outputs) g.message(12, (x) => writeValueInfo(x, v));
  });
  for (const o of m.opsets) w.message(8, (x) => x.string(1, o.domain).int(2, o.version));
  for (const [key, value] of Object.entries(m.metadata)) w.message(14, (x) => x.string(1, key).string(2, value));
  return w.finish();
}

export function int64Tensor(values: ArrayLike<number>, dims: number[] = [values.length], name?: string): Tensor {
  const raw = new Uint8Array(values.length * 8);
  const view = new DataView(raw.buffer);
  for (let i = 0; i < values.length; i++) view.setBigInt64(i * 8, BigInt(values[i]), true);
  return { name, dataType: DataType.INT64, dims, raw };
}

/**
 * `model` with more metadata_props entries: protobuf repeated fields may come in any order and
 * concatenate, so the entries are appended to the encoded ModelProto as they are.
 */
export function appendMetadata(model: Uint8Array, metadata: Record<string, string>): Uint8Array {
  const w = new ProtoWriter();
  for (const [key, value] of Object.entries(metadata)) w.message(14, (x) => x.string(1, key).string(2, value));
  const extra = w.finish();
  const out = new Uint8Array(model.length + extra.length);
  out.set(model);
  out.set(extra, model.length);
  return out;
}
