/**
 * Bad-input corpus, files: every malformed file through every route that takes one (direct
 * upload, signed upload, sync and async inference). Each is answered without a 5xx, with a
 * `detail` when refused, and every job it started ends.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectHandled, expectNoJobLeftUnfinished } from "./bad-input-helpers";
import { json, newOrg, putSigned, SIMPLE_PARQUET, type TestOrg, untilJobEnds } from "./helpers";
import { jobEnd, readyDataset } from "./model-helpers";

const text = (s: string) => new TextEncoder().encode(s);
const bytes = (...xs: number[]) => new Uint8Array(xs);
const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};
const wide = (n: number) => `${Array.from({ length: n }, (_, i) => `c${i}`).join(",")}\n${Array.from({ length: n }, (_, i) => i).join(",")}\n`;

/** [what, filename, content type, bytes] */
const FILES: Array<[string, string, string, Uint8Array]> = [
  ["empty", "empty.csv", "text/csv", new Uint8Array(0)],
  ["header only", "header.csv", "text/csv", text("age,city,income\n")],
  ["binary as CSV", "bin.csv", "text/csv", new Uint8Array(2048).map((_, i) => (i * 131 + 7) % 256)],
  ["NUL bytes in cells", "nul.csv", "text/csv", text("a,b\n1,x\u0000y\n2,\u0000\n")],
  ["BOM + CRLF", "bom.csv", "text/csv", text("\uFEFFa,b,c\r\n1,x,2\r\n3,y,4\r\n5,x,6\r\n")],
  ["duplicate column names", "dup.csv", "text/csv", text("a,b,a\n1,2,3\n4,5,6\n")],
  ["empty column names", "blank.csv", "text/csv", text("a,,\n1,2,3\n4,5,6\n")],
  ["ragged rows", "ragged.csv", "text/csv", text("a,b\n1,2\n3,4,5\n6\n")],
  ["unterminated quote", "quote.csv", "text/csv", text('a,b\n1,"open\n2,3\n')],
  ["truncated Parquet", "cut.parquet", "application/octet-stream", SIMPLE_PARQUET.slice(0, 600)],
  ["fake Parquet (CSV inside)", "fake.parquet", "application/octet-stream", text("a,b\n1,2\n")],
  ["Parquet magic only", "magic.parquet", "application/octet-stream", text("PAR1PAR1")],
  [
    "Parquet with a footer length past the file",
    "footer.parquet",
    "application/octet-stream",
    concat(text("PAR1"), bytes(1, 2, 3, 4), bytes(0xff, 0xff, 0xff, 0x7f), text("PAR1")),
  ],
  ["Parquet bytes named .csv", "actually.csv", "text/csv", SIMPLE_PARQUET],
  ["5,000 columns", "wide.csv", "text/csv", text(wide(5000))],
  ["2,001 columns", "wide2.csv", "text/csv", text(wide(2001))],
  ["only newlines", "newlines.csv", "text/csv", text("\n\n\n\n")],
  ["only commas", "commas.csv", "text/csv", text(",,,\n,,,\n,,,\n")],
  ["one cell of 1 MB", "long.csv", "text/csv", text(`a,b\n${"x".repeat(1024 * 1024)},1\n2,3\n`)],
  ["invalid UTF-8", "latin1.csv", "text/csv", concat(text("name,city\nJos"), bytes(0xe9), text(",Paris\nAna,Lyon\n"))],
  ["gzip", "data.csv.gz", "application/gzip", bytes(0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3)],
  [
    "xlsx (zip)",
    "book.xlsx",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    concat(bytes(0x50, 0x4b, 3, 4), new Uint8Array(64)),
  ],
  ["PDF", "doc.pdf", "application/pdf", text("%PDF-1.4\n%âãÏÓ\n1 0 obj\n<<>>\nendobj\n")],
  ["JSON named .csv", "rows.csv", "text/csv", text('[{"a":1,"b":2},{"a":3,"b":4}]')],
  ["all values missing", "missing.csv", "text/csv", text("a,b\n,\n,\n,\n")],
  ["broken quoted header", "qheader.csv", "text/csv", text('"a,b\n1,2\n3,4\n')],
  ["CR-only line ends", "cr.csv", "text/csv", text("a,b\r1,2\r3,4\r")],
  ["numbers out of range", "inf.csv", "text/csv", text("a,b\n1e999,2\n-1e999,3\n4,5\n")],
  ["a header of quotes and spaces", "spaces.csv", "text/csv", text('" "," "\n1,2\n')],
  ["unknown extension", "data.xyz", "application/x-unknown", text("a,b\n1,2\n")],
];

let org: TestOrg;
let modelId: string;

beforeAll(async () => {
  org = await newOrg();
  const ds = await readyDataset(org);
  const r = await json("/models/train", org, {
    method: "POST",
    body: { model_name: "corpus", model_type: "prediction", dataset_id: ds.id, label_column: "churned", params: { max_rounds: 5 } },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  expect((await jobEnd(org, r.body.job_id)).status).toBe("succeeded");
  modelId = r.body.model.id;
}, 60_000);

afterAll(async () => {
  await expectNoJobLeftUnfinished(org);
}, 60_000);

const form = (content: Uint8Array, filename: string, type: string, fields: Record<string, string> = {}) => {
  const f = new FormData();
  f.append("file", new File([content], filename, { type }));
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  return f;
};

describe("direct upload", () => {
  it.each(FILES)("%s", async (what, filename, type, content) => {
    const r = await expectHandled(org, { path: "/datasets", body: form(content, filename, type, { dataset_name: what }) });
    if (r.status === 201) await untilJobEnds(org, r.body.job_id, 30_000);
  });

  it("BOM + CRLF comes back with clean column names and values", async () => {
    const content = FILES.find(([w]) => w === "BOM + CRLF")![3];
    const r = await expectHandled(org, { path: "/datasets", body: form(content, "bom2.csv", "text/csv", { dataset_name: "bom2" }) });
    expect((await untilJobEnds(org, r.body.job_id)).status).toBe("succeeded");
    const preview = await json(`/datasets/${r.body.dataset.id}/preview`, org);
    expect(preview.body.rows[0]).toEqual({ id: 0, a: 1, b: "x", c: 2 });
  });
});

describe("signed upload", () => {
  it.each(FILES.filter(([, , , c]) => c.length > 0 && c.length < 200_000))("%s", async (what, filename, type, content) => {
    const file = { filename, bytes: content.length, content_type: type };
    const r = await expectHandled(org, {
      path: "/datasets/upload",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ dataset_name: what, file }),
    });
    if (r.status !== 201) return; // refused up front (an unknown type): nothing to upload
    const prepared = r.body;
    const put = await putSigned(prepared.upload.upload_url, content, type);
    expect(put.status).toBeLessThan(500);
    const done = await expectHandled(org, { path: `/datasets/${prepared.dataset.version_id}/complete` });
    if (done.status === 200) await untilJobEnds(org, prepared.job_id, 30_000);
  });
});

describe("sync inference", () => {
  it.each(FILES)("%s", async (_what, filename, type, content) => {
    await expectHandled(org, { path: `/models/${modelId}/infer`, body: form(content, filename, type) });
  });
});

describe("async inference", () => {
  it.each(FILES)("%s", async (_what, filename, type, content) => {
    const r = await expectHandled(org, { path: `/models/${modelId}/infer-async`, body: form(content, filename, type) });
    if (r.status === 202) await untilJobEnds(org, r.body.id ?? r.body.job_id, 30_000);
  });
});
