import { describe, expect, it } from "vitest";
import { decodeFrame, encodeFrame, frameChunks } from "../../src/ingest/codec";
import { encodeCodes } from "../../src/ingest/column-encoding";
import type { Column, Frame } from "../../src/ml/frame";
import { seededRandom } from "../seeded-random";
import { csv, joinChunks } from "./helpers";

/** The JSON header of an encoded frame. */
function headerOf(bytes: Uint8Array): {
  rowCount: number;
  columns: { name: string; encoding?: Record<string, unknown>; spellings?: { encoding?: Record<string, unknown> } }[];
} {
  const length = new DataView(bytes.buffer, bytes.byteOffset).getUint32(8, true);
  return JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + length)));
}

const bitsOf = (a: Float64Array | Int32Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

/** Decoded is deeply the frame, and every value and code the very same bits. */
function expectIdentical(decoded: Frame, frame: Frame): void {
  expect(decoded).toEqual(frame);
  expect(decoded.columns.length).toBe(frame.columns.length);
  frame.columns.forEach((c, i) => {
    const d = decoded.columns[i];
    if (c.storage === "numeric" && d.storage === "numeric") {
      expect(d.values).toBeInstanceOf(Float64Array);
      expect(bitsOf(d.values)).toEqual(bitsOf(c.values));
      if (c.spellings) expect(d.spellings && bitsOf(d.spellings.codes)).toEqual(bitsOf(c.spellings.codes));
    } else if (c.storage === "dictionary" && d.storage === "dictionary") {
      expect(d.codes).toBeInstanceOf(Int32Array);
      expect(bitsOf(d.codes)).toEqual(bitsOf(c.codes));
    } else throw new Error(`column ${c.name} changed storage`);
  });
}

const numeric = (name: string, values: number[] | Float64Array, extra: Partial<Column> = {}): Column =>
  ({ name, kind: "numeric", storage: "numeric", values: Float64Array.from(values), ...extra }) as Column;
const dictionary = (name: string, codes: number[] | Int32Array, size: number): Column => ({
  name,
  kind: "categorical",
  storage: "dictionary",
  codes: Int32Array.from(codes),
  dictionary: Array.from({ length: size }, (_, i) => `v${i}`),
});
const frameOf = (...columns: Column[]): Frame => ({
  rowCount: columns.length ? (columns[0].storage === "numeric" ? columns[0].values.length : columns[0].codes.length) : 0,
  columns,
});

/** Encodes and decodes one column: its stored encoding (undefined = raw), after checking the round trip. */
function roundTrip(column: Column): Record<string, unknown> | undefined {
  const frame = frameOf(column);
  const bytes = encodeFrame(frame);
  expectIdentical(decodeFrame(bytes), frame);
  return headerOf(bytes).columns[0].encoding;
}

describe("frame codec, version 2 and 3 encodings", () => {
  it("stores values on each decimal grid as small integers, bit for bit, with missing values", () => {
    const random = seededRandom(13);
    for (let d = 0; d <= 9; d++) {
      const values = Array.from({ length: 500 }, () => (random() < 0.1 ? Number.NaN : (Math.round((random() - 0.5) * 200) + 0) / 10 ** d)); // + 0: no -0
      const encoding = roundTrip(numeric("x", values));
      expect(encoding?.type).toBe("grid");
      expect(encoding?.width).toBe(1);
      // The coarsest grid that holds them: 10^d unless every k happened to share a factor of 10.
      expect(encoding?.times).toBeLessThanOrEqual(10 ** d);
    }
  });

  it("keeps raw a column with a value just off the grid, -0, ±Infinity or a subnormal", () => {
    const next = (v: number) => {
      const b = new Float64Array([v]);
      new BigInt64Array(b.buffer)[0] += 1n;
      return b[0];
    };
    const base = [1.5, 2.25, Number.NaN, 3];
    for (const odd of [next(2.25), 0.1 + 0.2, -0, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 5e-324, 2.2250738585072014e-308]) {
      expect(roundTrip(numeric("x", [...base, odd]))).toBeUndefined();
    }
    // -0 alone, and as the start of what would be a range.
    expect(roundTrip(numeric("x", [-0]))).toBeUndefined();
    expect(roundTrip(numeric("id", [-0, 1, 2, 3]))).toBeUndefined();
  });

  it("chooses 1, 2 or 4 bits, u8, u16, 3 bytes or u32 by the number of grid points, a code above them kept for NaN", () => {
    const layouts = [
      [1, 1, 1],
      [2, 1, 2],
      [3, 1, 2],
      [4, 1, 4],
      [15, 1, 4],
      [16, 1, undefined],
      [255, 1, undefined],
      [256, 2, undefined],
      [65535, 2, undefined],
      [65536, 3, undefined],
      [3_000_000, 3, undefined],
      [2 ** 24 - 1, 3, undefined],
      [2 ** 24, 4, undefined],
    ] as const;
    for (const [points, width, bits] of layouts) {
      // lo and hi present, so the grid spans exactly `points` points (whole numbers); NaNs between.
      const values = [0, points - 1, Number.NaN, Math.min(1, points - 1), Number.NaN, Math.max(0, points - 2), 0, Number.NaN];
      const e = roundTrip(numeric("x", values));
      expect({ type: e?.type, width: e?.width, bits: e?.bits }, `${points} points`).toEqual({ type: "grid", width, bits });
    }
    // Large integers near 2^53 on a small range: offsets from lo.
    expect(roundTrip(numeric("x", [2 ** 53 - 10, 2 ** 53 - 1, Number.NaN]))).toMatchObject({ type: "grid", lo: 2 ** 53 - 10, width: 1 });
    // Beyond 2^32 − 1 points on every grid: raw.
    expect(roundTrip(numeric("x", [0, 2 ** 33, 7]))).toBeUndefined();
    expect(roundTrip(numeric("x", [0, 1e300]))).toBeUndefined();
  });

  it("stores a run start, start + 1, … as a range with no bytes, and anything else not", () => {
    const n = 1000;
    const ids = Float64Array.from({ length: n }, (_, i) => i);
    expect(roundTrip({ name: "id", kind: "id", storage: "numeric", values: ids })).toEqual({ type: "range", start: 0 });
    expect(
      roundTrip(
        numeric(
          "id",
          ids.map((v) => v - 500),
        ),
      ),
    ).toEqual({ type: "range", start: -500 });
    expect(
      roundTrip(
        numeric(
          "id",
          ids.map((v) => v + 7),
        ),
      ),
    ).toEqual({ type: "range", start: 7 });
    const gap = ids.slice();
    gap[600] = 601;
    expect(roundTrip(numeric("id", gap))?.type).toBe("grid");
    const hole = ids.slice();
    hole[3] = Number.NaN;
    expect(roundTrip(numeric("id", hole))?.type).toBe("grid");
    expect(roundTrip(numeric("id", [0.5, 1.5, 2.5]))?.type).toBe("grid");
    const frame = frameOf(numeric("id", ids));
    expect(encodeFrame(frame).length).toBeLessThan(200);
  });

  it("stores booleans in 2 bits with their labels and spellings, and whole days and seconds on their grids", async () => {
    const { frame } = await csv(
      "b,d,t,n\nYes,2024-01-01,2024-01-01T10:00:00Z,1\nyes,2024-01-02,,2\nNO,,2024-01-01T10:00:01Z,3\n,1969-12-31,1960-05-01T00:00:00Z,4\nYES,2024-01-05,2024-01-03T00:00:00Z,5\n",
    );
    const bytes = encodeFrame(frame);
    expectIdentical(decodeFrame(bytes), frame);
    const header = headerOf(bytes).columns;
    const b = header.find((c) => c.name === "b");
    expect(b?.encoding).toMatchObject({ type: "grid", width: 1, bits: 2 }); // 0, 1 and the NaN code
    expect(b?.spellings?.encoding).toEqual({ type: "shifted", width: 1, bits: 4 }); // 4 spellings + missing
    expect(header.find((c) => c.name === "d")?.encoding).toMatchObject({ type: "grid", step: 86_400_000 });
    expect(header.find((c) => c.name === "t")?.encoding).toMatchObject({ type: "grid", step: 1000 });
    const t = decodeFrame(bytes).columns.find((c) => c.name === "d");
    expect(t?.storage === "numeric" && t.dateOnly).toBe(true);
  });

  it("stores dictionary codes + 1 in 1, 2 or 4 bits, u8, u16 or 3 bytes by the dictionary's size, missing codes included", () => {
    const random = seededRandom(7);
    const sizes = [
      [0, 1, 1],
      [1, 1, 1],
      [2, 1, 2],
      [3, 1, 2],
      [4, 1, 4],
      [15, 1, 4],
      [16, 1, undefined],
      [255, 1, undefined],
      [256, 2, undefined],
      [65535, 2, undefined],
      [65536, 3, undefined],
      [100_000, 3, undefined],
    ] as const;
    for (const [size, width, bits] of sizes) {
      // odd lengths: the last byte of packed codes is partly used
      for (const n of size > 1000 ? [3001] : [3001, 3002, 3003]) {
        const codes = Array.from({ length: n }, (_, i) => (i === 0 || size === 0 ? -1 : i === 1 ? size - 1 : Math.floor(random() * size)));
        const encoding = roundTrip(dictionary("c", codes, size));
        expect(encoding, `${size} values`).toEqual(bits ? { type: "shifted", width, bits } : { type: "shifted", width });
      }
    }
    // Codes outside -1 .. 2^24 − 2: kept raw, as they were.
    expect(roundTrip(dictionary("c", [-2, 0, 1], 2))).toBeUndefined();
    expect(encodeCodes(Int32Array.from([-1, 2 ** 24 - 2, 0])).encoding).toEqual({ type: "shifted", width: 3 });
    expect(encodeCodes(Int32Array.from([-1, 2 ** 24 - 1, 0])).encoding).toBeUndefined();
  });

  it("keeps a NaN with a payload raw (bits preserved), and encodes an all-missing column", () => {
    const odd = new Float64Array([1, Number.NaN, 2]);
    new Uint32Array(odd.buffer)[2] = 1; // low word of the NaN: a payload
    expect(Number.isNaN(odd[1])).toBe(true);
    expect(roundTrip(numeric("x", odd))).toBeUndefined();
    expect(roundTrip(numeric("x", [Number.NaN, Number.NaN]))).toMatchObject({ type: "grid", width: 1 });
  });

  it("round-trips empty frames, 0 rows, and random columns of every shape, also from a misaligned buffer", () => {
    expectIdentical(decodeFrame(encodeFrame({ rowCount: 0, columns: [] })), { rowCount: 0, columns: [] });
    const empty = frameOf(
      numeric("id", []),
      dictionary("c", [], 0),
      numeric("b", [], { kind: "boolean", spellings: { codes: new Int32Array(0), dictionary: [] } }),
    );
    expectIdentical(decodeFrame(encodeFrame(empty)), empty);

    const random = seededRandom(2026);
    const n = 4001;
    const shapes: (() => number)[] = [
      () => Math.round(random() * 1e6) / 100,
      () => (random() < 0.5 ? Number.NaN : Math.round(random() * 40) / 1000),
      () => random(),
      () => (random() - 0.5) * 1e300,
      () => Math.floor(random() * 20_000) * 86_400_000,
      () => Math.round(random() * 4e9),
      () => Math.round(random() * 1e12),
      () => (random() < 0.001 ? -0 : Math.round(random() * 100)),
      () => (random() < 0.5 ? 0 : 1),
    ];
    const columns: Column[] = shapes.map((draw, s) => numeric(`s${s}`, Float64Array.from({ length: n }, draw)));
    columns.unshift(
      numeric(
        "id",
        Float64Array.from({ length: n }, (_, i) => i),
        { kind: "id" },
      ),
    );
    columns.push(
      dictionary(
        "c",
        Int32Array.from({ length: n }, () => Math.floor(random() * 301) - 1),
        300,
      ),
    );
    const frame: Frame = { rowCount: n, columns };
    const bytes = encodeFrame(frame);
    expectIdentical(decodeFrame(bytes), frame);
    const shifted = new Uint8Array(bytes.length + 3).subarray(3);
    shifted.set(bytes);
    expectIdentical(decodeFrame(shifted), frame);
    expect(headerOf(bytes).columns.map((c) => c.encoding?.type ?? "raw")).toEqual([
      "range",
      "grid",
      "grid",
      "raw",
      "raw",
      "grid",
      "grid",
      "raw",
      "raw",
      "grid",
      "shifted",
    ]);
  });

  it("streams encoded columns as their own smaller pieces, the total known up front", () => {
    const n = 1000;
    const frame = frameOf(
      numeric(
        "id",
        Float64Array.from({ length: n }, (_, i) => i),
      ),
      numeric(
        "x",
        Float64Array.from({ length: n }, (_, i) => i % 7),
      ),
      numeric(
        "y",
        Float64Array.from({ length: n }, (_, i) => Math.sqrt(i)),
      ),
    );
    const { byteLength, chunks } = frameChunks(frame);
    const joined = joinChunks(byteLength, chunks);
    expect(joined).toEqual(encodeFrame(frame));
    const [x, y] = [frame.columns[1], frame.columns[2]];
    expect(chunks.some((c) => x.storage === "numeric" && c.buffer === x.values.buffer)).toBe(false);
    expect(chunks.some((c) => y.storage === "numeric" && c.buffer === y.values.buffer)).toBe(true);
    expect(byteLength).toBeLessThan(n * 8 + n + 1000);
    expectIdentical(decodeFrame(joined), frame);
  });

  it("copies raw columns that are under half the data, so the input need not be held for them", () => {
    const n = 1000;
    const small = frameOf(
      numeric(
        "x",
        Float64Array.from({ length: n }, (_, i) => i % 7),
      ),
      numeric(
        "y",
        Float64Array.from({ length: n }, (_, i) => Math.sqrt(i)),
      ),
    );
    // y raw (8,000 bytes) is most of the data: a view.
    let bytes = encodeFrame(small);
    let y = decodeFrame(bytes).columns[1];
    expect(y.storage === "numeric" && y.values.buffer).toBe(bytes.buffer);
    // y raw beside ten encoded columns of 1,000 bytes each: copied, bit for bit.
    const wide = frameOf(
      ...Array.from({ length: 10 }, (_, i) =>
        numeric(
          `x${i}`,
          Float64Array.from({ length: n }, (_, j) => (i * j) % 200),
        ),
      ),
      small.columns[1],
    );
    bytes = encodeFrame(wide);
    const decoded = decodeFrame(bytes);
    y = decoded.columns[10];
    expect(y.storage === "numeric" && y.values.buffer).not.toBe(bytes.buffer);
    expectIdentical(decoded, wide);
  });
});
