import { describe, expect, it } from "vitest";
import { decodeFrame, encodeFrame } from "../../src/ingest/codec";
import { type ColumnPlan, SegmentedFrameWriter } from "../../src/ingest/segmented-frame";
import type { Frame, NumericColumn } from "../../src/ml/frame";
import { seededRandom } from "../seeded-random";
import { csv, expectSameFrame } from "./helpers";

async function table(rows: number): Promise<Frame> {
  const r = seededRandom(21);
  const lines = ["x,raw,cat,flag,day"];
  for (let i = 0; i < rows; i++) {
    const x = r() < 0.05 ? "" : (r() * 100).toFixed(2);
    const raw = String(r() * 1e-3); // full doubles: stored raw
    const cat = ["red", "green", "blue", ""][Math.floor(r() * 4)];
    const flag = ["yes", "Yes", "no", ""][Math.floor(r() * 4)];
    lines.push([x, raw, cat, flag, `2024-0${1 + Math.floor(r() * 9)}-1${Math.floor(r() * 9)}`].join(","));
  }
  return (await csv(`${lines.join("\n")}\n`)).frame;
}

/** The version-4 form of `frame`: every stream in segments of `segmentRows` rows, a boolean column with spellings as codes plus a table. */
function segmented(frame: Frame, segmentRows: number): Uint8Array {
  const pieces: Uint8Array[] = [];
  const writer = new SegmentedFrameWriter((b) => pieces.push(b.slice()));
  const plans: ColumnPlan[] = [];
  const appendAll = (key: string, stores: "values" | "codes", data: Float64Array | Int32Array) => {
    for (let at = 0; at < data.length; at += segmentRows) writer.append(key, stores, data.slice(at, at + segmentRows), at);
  };
  for (const c of frame.columns) {
    const { name, kind, storage } = c;
    if (c.storage === "dictionary") {
      appendAll(name, "codes", c.codes);
      plans.push({ name, kind, storage, stream: name, dictionary: c.dictionary });
      continue;
    }
    const plan: ColumnPlan = { name, kind, storage, stream: name, booleanLabels: c.booleanLabels, dateOnly: c.dateOnly };
    if (c.spellings) {
      // as a text column that turned boolean is stored: its spelling codes and a value per spelling
      const { codes, dictionary } = c.spellings;
      const table = new Float64Array(dictionary.length);
      codes.forEach((code, i) => code >= 0 && (table[code] = c.values[i]));
      appendAll(name, "codes", codes);
      plan.table = table;
      plan.spellings = { dictionary };
    } else appendAll(name, "values", c.values);
    plans.push(plan);
  }
  const length = writer.finish(frame.rowCount, plans);
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const p of pieces) at += (bytes.set(p, at), p.length);
  return bytes;
}

const numeric = (frame: Frame, name: string) => frame.columns.find((c) => c.name === name) as NumericColumn;

describe("a frame decoded lazily", () => {
  it("reads as the eagerly decoded frame, in version 3 and in version 4", async () => {
    const frame = await table(3000);
    expect(numeric(frame, "flag").spellings).toBeDefined();
    for (const [what, bytes] of [
      ["version 3", encodeFrame(frame)],
      ["version 4", segmented(frame, 700)],
    ] as const) {
      expectSameFrame(decodeFrame(bytes, { lazy: true }), decodeFrame(bytes), what);
      expectSameFrame(decodeFrame(bytes, { lazy: true }), frame, what);
    }
  });

  it("holds one widened column at a time: a column read again after another is widened again", async () => {
    const lazy = decodeFrame(encodeFrame(await table(500)), { lazy: true });
    const x = numeric(lazy, "x").values;
    expect(numeric(lazy, "x").values).toBe(x);
    numeric(lazy, "day").values;
    const again = numeric(lazy, "x").values;
    expect(again).not.toBe(x);
    expect(again).toEqual(x);
  });

  it("views the input's bytes for a raw column (version 3) instead of copying it", async () => {
    const bytes = encodeFrame(await table(500));
    const raw = numeric(decodeFrame(bytes, { lazy: true }), "raw").values;
    expect(raw.buffer).toBe(bytes.buffer);
  });
});
