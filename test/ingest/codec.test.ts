import { describe, expect, it } from "vitest";
import { decodeFrame, encodeFrame, frameChunks } from "../../src/ingest/codec";
import { csv } from "./helpers";

const sample = () => csv("n,c,t,b,d\n1.5,red,2024-01-01,yes,x\n,blue,,no,y\n3,,2024-03-01,,z\n");

describe("frame codec", () => {
  it("round-trips every storage and kind", async () => {
    const { frame } = await sample();
    expect(decodeFrame(encodeFrame(frame))).toEqual(frame);
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
