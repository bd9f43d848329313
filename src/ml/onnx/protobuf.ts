/**
 * A minimal protobuf *writer*: just the wire types ONNX needs (varint, 64-bit, length-delimited,
 * 32-bit). Hand-written instead of protobufjs so the Worker bundle carries no schema or codegen
 * step; ONNX messages are built field by field in `onnx-proto.ts`.
 */
const textEncoder = new TextEncoder();

export class ProtoWriter {
  private buf = new Uint8Array(256);
  private len = 0;

  private ensure(extra: number): void {
    if (this.len + extra <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + extra) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  /** Unsigned or non-negative varint; negative int64 values take the 10-byte two's complement form. */
  varint(value: number | bigint): this {
    this.ensure(10);
    if (typeof value === "number" && value >= 0 && value <= 0x7fffffff) {
      // Fast path for the common case (indices, counts) without BigInt.
      let n = value;
      while (n >= 0x80) {
        this.buf[this.len++] = (n & 0x7f) | 0x80;
        n >>>= 7;
      }
      this.buf[this.len++] = n;
      return this;
    }
    let v = BigInt.asUintN(64, BigInt(value));
    while (v >= 0x80n) {
      this.buf[this.len++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buf[this.len++] = Number(v);
    return this;
  }

  private tag(field: number, wireType: number): void {
    this.varint((field << 3) | wireType);
  }

  /** int32 / int64 / enum / bool field (wire type 0). */
  int(field: number, value: number | bigint): this {
    this.tag(field, 0);
    return this.varint(value);
  }

  bytes(field: number, data: Uint8Array): this {
    this.tag(field, 2);
    this.varint(data.length);
    this.ensure(data.length);
    this.buf.set(data, this.len);
    this.len += data.length;
    return this;
  }

  string(field: number, value: string): this {
    return this.bytes(field, textEncoder.encode(value));
  }

  /** Embedded message: the writer callback fills a fresh writer whose bytes become the field. */
  message(field: number, fill: (w: ProtoWriter) => void): this {
    const inner = new ProtoWriter();
    fill(inner);
    return this.bytes(field, inner.finish());
  }

  /** float field (wire type 5, little-endian IEEE-754 single). */
  float(field: number, value: number): this {
    this.tag(field, 5);
    this.ensure(4);
    new DataView(this.buf.buffer).setFloat32(this.len, value, true);
    this.len += 4;
    return this;
  }

  /** Packed repeated varints (int32 / int64), the proto3 default encoding. */
  packedInts(field: number, values: ArrayLike<number>): this {
    const inner = new ProtoWriter();
    for (let i = 0; i < values.length; i++) inner.varint(values[i]);
    return this.bytes(field, inner.finish());
  }

  finish(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}
