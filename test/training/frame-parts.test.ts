/** Cutting an encoded frame (held as pieces) into the equal parts of a multipart upload. */
import { describe, expect, it } from "vitest";
import { framePart, framePartCount } from "../../src/storage/frame-parts";

const bytes = (from: number, n: number) => Uint8Array.from({ length: n }, (_, i) => from + i);
/** 0..22 in pieces of 3, 0, 7, 1 and 12 bytes: parts cross piece boundaries and empty pieces. */
const chunks = [bytes(0, 3), bytes(3, 0), bytes(3, 7), bytes(10, 1), bytes(11, 12)];
const total = 23;

describe("framePart", () => {
  it("cuts parts of the given size, the last one shorter, that join to the whole", () => {
    expect(framePartCount(total, 5)).toBe(5);
    const parts = [0, 1, 2, 3, 4].map((i) => framePart(chunks, total, i, 5));
    expect(parts.map((p) => p.length)).toEqual([5, 5, 5, 5, 3]);
    expect(parts.flatMap((p) => [...p])).toEqual([...bytes(0, total)]);
  });

  it("makes one empty part of an empty frame", () => {
    expect(framePartCount(0, 5)).toBe(1);
    expect(framePart([], 0, 0, 5)).toEqual(new Uint8Array(0));
  });

  it("copies, so a part does not alias the frame's columns", () => {
    const part = framePart(chunks, total, 0, 2);
    part[0] = 99;
    expect(chunks[0][0]).toBe(0);
  });
});
