/**
 * The trainer reads a Parquet file's footer before streaming the file: the control route for an
 * ingest job's uploaded files answers `Range: bytes=first-last` with 206 and those bytes (a last
 * byte past the end meaning up to the end, as in HTTP), and refuses a range it cannot serve.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { call, newOrg } from "./helpers";
import { preparedIngest, SECRET } from "./ingest-helpers";
import { runningCopy } from "./model-helpers";

const PART = `id,x,label\n${Array.from({ length: 50 }, (_, i) => `${i},${i / 2},${i % 3}`).join("\n")}\n`;

let job: { id: string; attempt: number };

beforeAll(async () => {
  const prepared = await preparedIngest(await newOrg(), [PART]);
  job = await runningCopy(prepared.job_id);
});

const source = (range?: string) =>
  call(`/internal/jobs/${job.id}/sources/0?attempt=${job.attempt}`, { headers: { ...SECRET, ...(range ? { Range: range } : {}) } });

describe("GET /internal/jobs/{id}/sources/{index} with a Range", () => {
  it("answers 206 with the bytes asked for, and their place in the file", async () => {
    const res = await source("bytes=3-9");
    expect(res.status).toBe(206);
    expect(res.headers.get("Content-Range")).toBe(`bytes 3-9/${PART.length}`);
    expect(res.headers.get("Content-Length")).toBe("7");
    expect(await res.text()).toBe(PART.slice(3, 10));
  });

  it("serves a range ending past the end of the file up to its end (the footer's read of a short file)", async () => {
    const res = await source(`bytes=${PART.length - 8}-${PART.length + 1000}`);
    expect(res.status).toBe(206);
    expect(res.headers.get("Content-Range")).toBe(`bytes ${PART.length - 8}-${PART.length - 1}/${PART.length}`);
    expect(await res.text()).toBe(PART.slice(-8));
  });

  it("answers the whole file without a Range, as before", async () => {
    const res = await source();
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(PART);
  });

  it("refuses a range starting past the end, an inverted range and one it does not read, saying why", async () => {
    for (const [range, detail] of [
      [`bytes=${PART.length}-${PART.length + 10}`, /start before the end of the file \(\d+ bytes\)/],
      ["bytes=9-3", /not end before it starts/],
      ["bytes=-5", /bytes=first-last/],
      ["bytes=0-1,5-9", /bytes=first-last/],
      ["items=0-1", /bytes=first-last/],
    ] as const) {
      const res = await source(range);
      expect(res.status, range).toBe(422);
      const body = await res.json<{ detail: unknown }>();
      expect(JSON.stringify(body.detail), range).toMatch(detail);
      expect(JSON.stringify(body.detail), range).toMatch(/range/);
    }
  });
});
