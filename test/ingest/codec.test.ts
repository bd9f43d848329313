import { describe, expect, it } from "vitest";
import { decodeFrame, encodeFrame, frameChunks } from "../../src/ingest/codec";
import { headFrame } from "../../src/ingest/head";
import { sliceRows } from "../../src/ingest/rows";
import { FRAME_V1_BASE64, FRAME_V1_CSV } from "./frame-v1-fixture";
import { csv, joinChunks } from "./helpers";

const sample = () => csv("n,c,t,b,d\n1.5,red,2024-01-01,yes,x\n,blue,,no,y\n3,,2024-03-01,,z\n");

describe("frame codec", () => {
  it("round-trips every storage and kind", async () => {
    const { frame } = await sample();
    expect(decodeFrame(encodeFrame(frame))).toEqual(frame);
  });

  it("round-trips a boolean column's per-row spellings and plain dates, whole and as a head", async () => {
    const { frame } = await csv("b,d,x\nYes,2024-01-01,1\nyes,2024-01-02,2\nNO,,3\n,2024-01-04,4\nYES,2024-01-05,5\n");
    expect(frame.columns.find((c) => c.name === "b")?.kind).toBe("boolean");
    const back = decodeFrame(encodeFrame(frame));
    expect(back).toEqual(frame);
    expect(sliceRows(back, [0, 1, 2, 3, 4]).map((r) => [r.b, r.d])).toEqual([
      ["Yes", "2024-01-01"],
      ["yes", "2024-01-02"],
      ["NO", null],
      [null, "2024-01-04"],
      ["YES", "2024-01-05"],
    ]);
    const head = decodeFrame(encodeFrame(headFrame(frame, 2)));
    expect(sliceRows(head, [0, 1]).map((r) => r.b)).toEqual(["Yes", "yes"]);
  });

  it("starts with the magic and version, and aligns column buffers to 8 bytes", async () => {
    const bytes = encodeFrame((await sample()).frame);
    expect(String.fromCharCode(...bytes.subarray(0, 4))).toBe("TMLF");
    expect(new DataView(bytes.buffer).getUint32(4, true)).toBe(3); // its boolean column takes 2 bits a value
    expect(bytes.length % 8).toBe(0);
  });

  it("writes version 3 only when a column needs its layouts (under a byte, 3 bytes), which version 2 refuses", async () => {
    const version = (b: Uint8Array) => new DataView(b.buffer).getUint32(4, true);
    // u8 and u16 codes, decimal grids in u8: what version 2 readers know
    const old = encodeFrame((await csv(`x,c\n${Array.from({ length: 300 }, (_, i) => `${i % 200}.5,v${i}`).join("\n")}\n`)).frame);
    expect(version(old)).toBe(2);
    // a boolean (2 bits a value)
    const { frame } = await csv("b,x\nyes,1.5\nno,2.5\n");
    const bits = encodeFrame(frame);
    expect(version(bits)).toBe(3);
    expect(decodeFrame(bits)).toEqual(frame);
    // the same bytes claiming version 2: a layout version 2 does not have
    const asV2 = bits.slice();
    new DataView(asV2.buffer).setUint32(4, 2, true);
    expect(() => decodeFrame(asV2)).toThrow(/column "b" has an unknown encoding/);
  });

  it("decodes raw columns as views over the input, without copying", async () => {
    // Values off every decimal grid stay raw Float64.
    const { frame } = await csv("x,c\n0.1234567890123,a\n3.14159265358979,b\n");
    const bytes = encodeFrame(frame);
    const decoded = decodeFrame(bytes);
    const x = decoded.columns.find((c) => c.name === "x");
    expect(x?.storage === "numeric" && x.values.buffer).toBe(bytes.buffer);
    expect(decoded).toEqual(frame);
  });

  it("decodes from a misaligned buffer by copying once", async () => {
    const { frame } = await sample();
    const bytes = encodeFrame(frame);
    const shifted = new Uint8Array(bytes.length + 1).subarray(1);
    shifted.set(bytes);
    expect(decodeFrame(shifted)).toEqual(frame);
  });

  it("splits into pieces that concatenate to the encoding, viewing raw columns in place", async () => {
    const { frame } = await csv("x,c\n0.1234567890123,a\n3.14159265358979,b\n");
    const { byteLength, chunks } = frameChunks(frame);
    expect(joinChunks(byteLength, chunks)).toEqual(encodeFrame(frame));
    // The generated id 0..n-1 is stored as a range (no bytes): the first data piece is x's values.
    const x = frame.columns[1];
    expect(x.storage === "numeric" && chunks[1].buffer).toBe(x.storage === "numeric" ? x.values.buffer : null);
  });

  it("stores every column raw when asked (frames a Worker reads back whole), decoding all of them as views", async () => {
    const { frame } = await sample();
    const { byteLength, chunks } = frameChunks(frame, { narrow: false });
    const bytes = joinChunks(byteLength, chunks);
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + new DataView(bytes.buffer).getUint32(8, true))));
    expect(header.columns.some((c: { encoding?: unknown }) => c.encoding)).toBe(false);
    const decoded = decodeFrame(bytes);
    expect(decoded).toEqual(frame);
    for (const c of decoded.columns) expect((c.storage === "numeric" ? c.values : c.codes).buffer).toBe(bytes.buffer);
  });

  it("refuses bytes that are not an encoded frame", () => {
    expect(() => decodeFrame(new TextEncoder().encode("a,b\n1,2\n"))).toThrow(/bad magic/);
  });
});

const fromBase64 = (b64: string) => Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0));

/** An encoded frame with its JSON header changed by `edit` (offsets kept: the header may grow). */
function withHeader(bytes: Uint8Array, edit: (header: { columns: Record<string, unknown>[] }) => void): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset);
  const length = view.getUint32(8, true);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + length)));
  edit(header);
  const json = new TextEncoder().encode(JSON.stringify(header));
  const dataStart = (12 + length + 7) & ~7;
  const newStart = (12 + json.length + 7) & ~7;
  const out = new Uint8Array(newStart + bytes.length - dataStart);
  out.set(bytes.subarray(0, 12));
  new DataView(out.buffer).setUint32(8, json.length, true);
  out.set(json, 12);
  out.set(bytes.subarray(dataStart), newStart);
  return out;
}

describe("frame codec versions", () => {
  it("decodes a version-1 frame as stored before version 2, as views", async () => {
    const bytes = fromBase64(FRAME_V1_BASE64);
    expect(new DataView(bytes.buffer).getUint32(4, true)).toBe(1);
    const decoded = decodeFrame(bytes);
    expect(decoded).toEqual((await csv(FRAME_V1_CSV)).frame);
    for (const c of decoded.columns) expect((c.storage === "numeric" ? c.values : c.codes).buffer).toBe(bytes.buffer);
    expect(sliceRows(decoded, [0, 2]).map((r) => [r.id, r.n, r.c, r.b, r.d])).toEqual([
      [7, 1.5, "red", "Yes", "2024-01-01"],
      [9, -0.25, null, "NO", "2024-03-01"],
    ]);
  });

  it("refuses a corrupt header with a clear error", async () => {
    const bytes = encodeFrame((await sample()).frame);
    expect(() => decodeFrame(withHeader(bytes, (h) => (h.columns[1].encoding = { type: "zigzag" })))).toThrow(/column "n" has an unknown encoding/);
    // widths are 1–4 bytes; bits (1, 2 or 4) only with a width of 1
    for (const bad of [{ width: 5 }, { width: 2, bits: 4 }, { width: 1, bits: 3 }]) {
      const encoding = { type: "grid", times: 10, step: 0, lo: 0, ...bad };
      expect(() => decodeFrame(withHeader(bytes, (h) => (h.columns[1].encoding = encoding)))).toThrow(/unknown encoding/);
    }
    expect(() => decodeFrame(withHeader(bytes, (h) => (h.columns[2].encoding = { type: "range", start: 0 })))).toThrow(
      /column "c" has an unknown encoding/,
    );
    expect(() => decodeFrame(withHeader(bytes, (h) => (h.columns[1].byteLength = 9999)))).toThrow(
      /column "n" lies outside the data or has the wrong length/,
    );
    expect(() => decodeFrame(withHeader(bytes, (h) => (h.columns[1].offset = 1 << 20)))).toThrow(/lies outside the data/);
    // before the data (into the header), and by a negative multiple of 8 that the alignment check alone let through
    for (const offset of [-8, -64, -(1 << 20), 0.5, 4]) {
      expect(() => decodeFrame(withHeader(bytes, (h) => (h.columns[1].offset = offset)))).toThrow(/lies outside the data/);
    }
    expect(() => decodeFrame(withHeader(bytes, (h) => delete h.columns[1].encoding))).toThrow(/wrong length/);
    const v5 = bytes.slice();
    new DataView(v5.buffer).setUint32(4, 5, true);
    expect(() => decodeFrame(v5)).toThrow(/unsupported version 5/);
    // relabelled as the segmented version 4, whose table is at the end: none there
    const v4 = bytes.slice();
    new DataView(v4.buffer).setUint32(4, 4, true);
    expect(() => decodeFrame(v4)).toThrow(/no trailer/);
    // Version 1 had no encodings: a v1 header that claims one is corrupt.
    const v1 = fromBase64(FRAME_V1_BASE64);
    expect(() => decodeFrame(withHeader(v1, (h) => (h.columns[0].encoding = { type: "range", start: 7 })))).toThrow(/unknown encoding/);
    expect(() => decodeFrame(bytes.subarray(0, 40))).toThrow(/truncated header/);
  });
});
