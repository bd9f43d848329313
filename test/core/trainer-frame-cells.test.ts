import { describe, expect, it } from "vitest";
import { MAX_FRAME_CELLS, trainerMaxFrameCells } from "../../src/core/limits";

const GiB = 1024 ** 3;

describe("the cells a trainer ingests, from its memory", () => {
  it("lets a standard-2 (6 GiB) read 50 M rows of 10 columns and the row id", () => {
    expect(trainerMaxFrameCells(6 * GiB)).toBeGreaterThanOrEqual(50_000_000 * 11);
  });

  it("refuses on a standard-2 what its memory could not hold: 50 M rows of 12 columns", () => {
    expect(trainerMaxFrameCells(6 * GiB)).toBeLessThan(50_000_000 * 13);
  });

  it("grows with the instance's memory", () => {
    expect(trainerMaxFrameCells(12 * GiB)).toBeGreaterThan(2 * trainerMaxFrameCells(6 * GiB));
  });

  it("never reads less than the Worker does, however small the trainer", () => {
    expect(trainerMaxFrameCells(256 * 1024 ** 2)).toBe(MAX_FRAME_CELLS);
  });
});
