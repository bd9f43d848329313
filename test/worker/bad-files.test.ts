import { describe, expect, it } from "vitest";
import { fileForm, json, newOrg, SIMPLE_PARQUET, waitForJob } from "./helpers";

const text = (s: string) => new TextEncoder().encode(s);
const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) out.set(p, at), (at += p.length);
  return out;
};

/** Text-looking first bytes (so the upload is accepted as CSV), then binary with NULs. */
const GARBAGE = concat(
  text("a,b\n1,2\n"),
  new Uint8Array(512).map((_, i) => (i * 31) % 97),
);
/** "José" in Latin-1: 0xE9 is not a UTF-8 character on its own. */
const LATIN1 = concat(text("name,city\nJos"), new Uint8Array([0xe9]), text(",Paris\nAna,Lyon\n"));

const BAD_FILES: Array<[string, string, Uint8Array, RegExp]> = [
  ["an empty file", "empty.csv", new Uint8Array(0), /file is empty/i],
  ["a header without rows", "header.csv", text("age,city,income\n"), /header row \(3 columns\) but no data rows/],
  ["binary garbage named .csv", "garbage.csv", GARBAGE, /not a CSV or Parquet file: it contains binary data/],
  ["a truncated Parquet file", "cut.parquet", SIMPLE_PARQUET.slice(0, 1200), /truncated/],
  ["a .parquet that is not Parquet", "fake.parquet", text("a,b\n1,2\n3,4\n"), /does not start with the Parquet marker/],
  ["ragged rows", "ragged.csv", text("a,b\n1,2\n3,4,5\n6,7\n"), /Line 3 has 3 fields but the header has 2 columns \(the record starts at byte 8\)/],
  [
    "a ragged row deep in (past the first parse piece)",
    "deep.csv",
    text(`a,b\n${"1,2\n".repeat(100_000)}3\n`),
    /Line 100002 has 1 field but the header has 2 columns \(the record starts at byte 400004\)/,
  ],
  ["duplicate column names", "dup.csv", text("a,b,a\n1,2,3\n"), /Duplicate column names: "a" \(columns 1 and 3\)/],
  ["an empty column name", "blank.csv", text("a,,c\n1,2,3\n"), /Column 2 has an empty name/],
  ["invalid UTF-8", "latin1.csv", LATIN1, /not valid UTF-8.*line 2/],
  ["one column", "one.csv", text("value\n1\n2\n3\n"), /only one column \("value"\)/],
  ["an unclosed quote", "quote.csv", text('a,b\n1,"open\n2,3\n'), /never closed \(a missing closing quote\) \(the record starts at byte 4\)/],
  ["duplicate values in an id column", "ids.csv", text("id,x\n1,a\n2,b\n1,c\n"), /"id" column is not unique: the value "1"/],
];

describe("bad files end as failed ingest jobs with a specific message", () => {
  it.each(BAD_FILES)("%s", async (_what, filename, bytes, phrase) => {
    const org = await newOrg();
    const type = filename.endsWith(".parquet") ? "application/octet-stream" : "text/csv";
    const r = await json("/datasets", org, { method: "POST", body: fileForm(bytes, filename, type, { dataset_name: filename }) });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const job = await waitForJob(org, r.body.job_id);
    expect(job.status).toBe("failed");
    expect(job.error_message).toMatch(phrase);
    expect(job.finished_at).not.toBeNull();
    const versions = await json(`/datasets/${r.body.dataset.id}/versions`, org);
    expect(versions.body.items[0]).toMatchObject({ status: "failed", error_message: job.error_message });
    const detail = await json(`/datasets/${r.body.dataset.id}`, org);
    expect(detail.body.current_version.status).toBe("failed");
  });
});
