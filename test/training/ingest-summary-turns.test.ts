import { expect, it } from "vitest";
import { ingestSummary, ingestSummaryInTurns } from "../../src/datasets/ingest-job";
import { readCsv } from "../../src/ingest/csv";

it("summarizes a column at a time, letting the caller's turn run between columns, to the same summary", async () => {
  const csv = "age,plan,score,active\n31,pro,0.5,yes\n,basic,1.25,no\n47,pro,,yes\n";
  const { frame, idGenerated } = await readCsv(new TextEncoder().encode(csv), { maxCells: 1000 });
  const turns: number[] = [];
  const summary = await ingestSummaryInTurns(frame, idGenerated, async () => {
    turns.push(turns.length);
  });
  expect(turns).toHaveLength(frame.columns.length);
  expect(summary).toEqual(ingestSummary(frame, idGenerated));
  expect(summary.columnCount).toBe(4);
});
