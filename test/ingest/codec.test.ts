import { describe, expect, it } from "vitest";
import { decodeFrame, encodeFrame, frameChunks } from "../../src/ingest/codec";
import { headFrame } from "../../src/ingest/head";
import { sliceRows } from "../../src/ingest/rows";
import { csv } from "./helpers";

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
    expect(new DataView(bytes.buffer).getUint32(4, true)).toBe(1);
    expect(bytes.length % 8).toBe(0);
  });

  it("decodes as views over the input, without copying", async () => {
    const bytes = encodeFrame((await sample()).frame);
    const decoded = decodeFrame(bytes);
    const first = decoded.columns[0];
    expect(first.storage === "numeric" && first.values.buffer).toBe(bytes.buffer);
  });

  it("decodes from a misaligned buffer by copying once", async () => {
    const { frame } = await sample();
    const bytes = encodeFrame(frame);
    const shifted = new Uint8Array(bytes.length + 1).subarray(1);
    shifted.set(bytes);
    expect(decodeFrame(shifted)).toEqual(frame);
  });

  it("splits into pieces that concatenate to the encoding, viewing the columns in place", async () => {
    const { frame } = await sample();
    const { byteLength, chunks } = frameChunks(frame);
    const joined = new Uint8Array(byteLength);
    let at = 0;
    for (const c of chunks) joined.set(c, (at += c.length) - c.length);
    expect(joined).toEqual(encodeFrame(frame));
    const id = frame.columns[0];
    expect(id.storage === "numeric" && chunks[1].buffer).toBe(id.storage === "numeric" ? id.values.buffer : null);
  });

  it("refuses bytes that are not an encoded frame", () => {
    expect(() => decodeFrame(new TextEncoder().encode("a,b\n1,2\n"))).toThrow(/bad magic/);
  });
});
