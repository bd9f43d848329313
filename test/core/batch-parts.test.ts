/**
 * A batch cut into row ranges (src/inference/batch-parts.ts): the parts, stored apart and put
 * together in order, are exactly the results one runner stores for the whole table.
 */
import { describe, expect, it } from "vitest";
import { BATCH_PART_ROWS, RESULT_PAGE_ROWS } from "../../src/core/limits";
import { cutIntoParts, decodePartResult, encodePartResult, joinParts, partResult, storeJoinedFiles } from "../../src/inference/batch-parts";
import { type ResultSink, storePages, storeResults } from "../../src/inference/results";
import type { Cell, ParquetColumnType, ResultTable } from "../../src/model-types/contract";

/** A sink that keeps what is stored, by name (`grouped`: it takes many pages a call, as the trainer's does). */
function memorySink(grouped = false) {
  const files = new Map<string, string | Uint8Array>();
  const sink: ResultSink = {
    putPage: async (page, json) => void files.set(`page-${page}`, json),
    putFile: async (format, body) => void files.set(format, body),
  };
  if (grouped) sink.putPages = async (first, pages) => pages.forEach((json, i) => files.set(`page-${first + i}`, json));
  return { sink, files };
}

/** Answers with what csv quotes (commas, quotes, line breaks, empty strings), missing values and list cells. */
function answers(rows: number): ResultTable {
  const label: Cell[] = [];
  const score: Cell[] = [];
  const list: Cell[] = [];
  for (let i = 0; i < rows; i++) {
    label.push(["yes", "no", 'say "hi"', "a,b", "", "two\nlines", null][i % 7]);
    score.push(i % 11 === 0 ? Number.NaN : i / 7);
    list.push([i, i + 0.5]);
  }
  return { label, score, neighbours: list };
}
const types: Record<string, ParquetColumnType> = { label: "string", score: "double", neighbours: "string" };

const slice = (t: ResultTable, start: number, end: number): ResultTable =>
  Object.fromEntries(Object.entries(t).map(([c, v]) => [c, v.slice(start, end)]));

describe("a batch cut into parts", () => {
  it("cuts a table into contiguous ranges, one per instance, each starting a result page", () => {
    expect(cutIntoParts(400_500, 2)).toEqual([
      { start: 0, end: 201_000 },
      { start: 201_000, end: 400_500 },
    ]);
    const many = cutIntoParts(2_000_001, 2);
    expect(many.every((p) => p.start % RESULT_PAGE_ROWS === 0 && p.end - p.start <= BATCH_PART_ROWS)).toBe(true);
    expect(many.at(-1)?.end).toBe(2_000_001);
  });

  it("stores, put together in order, the files and pages one runner stores", async () => {
    const whole = answers(5_500);
    const one = memorySink();
    await storeResults(one.sink, whole, types);
    const split = memorySink(true);
    const results = [];
    for (const range of cutIntoParts(5_500, 3, 2_000)) {
      const rows = { table: slice(whole, range.start, range.end), columnTypes: types };
      await storePages(split.sink, rows.table, range.start / RESULT_PAGE_ROWS);
      results.push(decodePartResult(encodePartResult(partResult(rows, range))));
    }
    await storeJoinedFiles(split.sink, joinParts(results));
    expect([...split.files.keys()].sort()).toEqual([...one.files.keys()].sort());
    for (const [name, body] of one.files) expect(split.files.get(name), name).toEqual(body);
  });
});
