import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readCsv, readCsvWithPapaparse } from "../../src/ingest/csv";
import { detectNewline } from "../../src/ingest/csv-sniff";
import type { IngestResult } from "../../src/ingest/types";
import { seededRandom } from "../seeded-random";
import { BENCH, type Outcome, outcome, streamOf, utf8 } from "./helpers";

// The hand-written tokenizer against papaparse (the reference it replaced): on random files with
// quotes, doubled quotes, line breaks inside quotes, empty fields, missing markers, whitespace,
// unicode, ragged rows, blank lines, stray and malformed quotes, every line ending and delimiter,
// both must give the same frame, or fail with the same error (code and message). The tokenizer's
// message also says at which byte the bad record starts (papaparse cannot): checked to be the
// first byte of the line the message names, then removed for the comparison.

const PLAIN = [
  "",
  " ",
  "NA",
  "null",
  "a",
  "b",
  " c ",
  "yes",
  "No",
  "1",
  "2.5",
  "-3",
  "007",
  "1e3",
  "ü",
  "€ 5",
  "😀",
  "Zoë",
  "x y",
  'ab"c',
  "\u00a0d",
];
const QUOTED = ['"a"', '"b,c"', '"say ""hi"""', '""', '"x\ny"', '"r\r\nn"', '"cr\rx"', '"€;|\t"', '" 2 "', '"NA"', '"😀"', '"x" '];
const BAD = ['"x"y', '"open', 'x"', '"a" b'];

function randomCsv(r: () => number, big: boolean): string {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
  const delim = pick([",", ";", "\t", "|"]);
  const newline = pick(["\n", "\r\n", "\r"]);
  const cols = 1 + Math.floor(r() * 5);
  const rows = big ? 12000 + Math.floor(r() * 8000) : Math.floor(r() * 12);
  const header = Array.from({ length: cols }, (_, j) => (r() < 0.1 ? `"h ${j}"` : `h${j}`));
  const lines = [header.join(delim)];
  const bad = r() < 0.3;
  const badFrom = big ? rows - 50 : 0; // in large files, near the end (past the first pieces)
  for (let i = 0; i < rows; i++) {
    if (r() < 0.03) {
      lines.push(r() < 0.5 ? "" : "  ");
      continue;
    }
    const broken = bad && i >= badFrom;
    const width = broken && r() < 0.03 ? cols + (r() < 0.5 ? 1 : -1) : cols;
    const cells = Array.from({ length: Math.max(1, width) }, () => {
      const u = r();
      if (broken && u < 0.01) return pick(BAD);
      if (u < 0.25) return pick(QUOTED);
      // Numbers stay numbers in most columns, so inference sees numeric columns too.
      return u < 0.6 ? String(Math.floor(r() * 50)) : pick(PLAIN);
    });
    lines.push(cells.join(delim));
  }
  let text = lines.join(newline);
  if (r() < 0.7) text += newline;
  if (r() < 0.2) text = `\ufeff${text}`;
  return text;
}

const AT_BYTE = / \(the record starts at byte (\d+)\)/;

/** readCsv's outcome for `bytes`, its byte offset checked against the line named and removed. */
async function tokenizerOutcome(bytes: Uint8Array, input: Promise<IngestResult>): Promise<Outcome> {
  const got = await outcome(input);
  if (got.ok || !AT_BYTE.test(got.message)) return got;
  const byte = Number(got.message.match(AT_BYTE)![1]);
  const line = Number(got.message.match(/[Ll]ine (\d+)/)![1]);
  expect(byte, got.message).toBe(lineStart(bytes, line));
  return { ...got, message: got.message.replace(AT_BYTE, "") };
}

/** The byte offset where 1-based `line` starts, lines ending at the reader's line character;
 * line 1 starts after a byte order mark. */
function lineStart(bytes: Uint8Array, line: number): number {
  const newline = detectNewline(new TextDecoder().decode(bytes.subarray(0, 1 << 20)));
  const lineChar = newline === "\r" ? 0x0d : 0x0a;
  let at = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  for (let l = 1; l < line; l++) at = bytes.indexOf(lineChar, at) + 1;
  return at;
}

describe("the hand-written CSV tokenizer reads like papaparse", () => {
  it("gives the same frame or the same error on random small files, whole and streamed", async () => {
    const r = seededRandom(13);
    let ok = 0;
    let failed = 0;
    for (let n = 0; n < 600; n++) {
      const text = randomCsv(r, false);
      const bytes = utf8(text);
      const want = await outcome(readCsvWithPapaparse(bytes));
      const got = await tokenizerOutcome(bytes, readCsv(bytes));
      const streamed = await tokenizerOutcome(bytes, readCsv(streamOf(bytes, 1 + Math.floor(r() * 17))));
      expect(got, JSON.stringify(text)).toEqual(want);
      expect(streamed, JSON.stringify(text)).toEqual(want);
      if (want.ok) ok++;
      else failed++;
    }
    // Both kinds were exercised.
    expect(ok).toBeGreaterThan(100);
    expect(failed).toBeGreaterThan(100);
  });

  it("gives the same frame or the same error on files of several parse pieces", async () => {
    const r = seededRandom(42);
    for (let n = 0; n < 8; n++) {
      const text = randomCsv(r, true);
      const bytes = utf8(text);
      const want = await outcome(readCsvWithPapaparse(bytes));
      const size = 1000 + Math.floor(r() * 70000);
      const got = await tokenizerOutcome(bytes, readCsv(streamOf(bytes, size)));
      expect(got, `file ${n} (${text.length} characters), chunks of ${size}`).toEqual(want);
    }
  });

  it("gives the same frames on the benchmark tables (high-cardinality numeric columns too)", async () => {
    for (const name of ["diamonds", "cps1988", "lending_club"]) {
      const bytes = new Uint8Array(readFileSync(`${BENCH}/${name}.csv`));
      expect((await readCsv(streamOf(bytes, 65536))).frame, name).toEqual((await readCsvWithPapaparse(bytes)).frame);
    }
  });

  it("reports malformed quotes with the line papaparse gave", async () => {
    for (const text of ['a,b\n1,2\n"x"y,3\n', 'a,b\n1,"x\ny"\n3,"oops\n4,5\n', 'a,b\r\n1,"2" \r\n"3"4,5\r\n', 'a;b\n1;2\n"x" ']) {
      const want = await outcome(readCsvWithPapaparse(utf8(text)));
      expect(want.ok).toBe(false);
      expect(await tokenizerOutcome(utf8(text), readCsv(utf8(text)))).toEqual(want);
    }
  });

  it("uses papaparse for a forced delimiter longer than one character", async () => {
    const r = await readCsv(utf8("a::b\n1::x\n2::y\n"), { delimiter: "::" });
    expect(r.delimiter).toBe("::");
    expect(r.frame.columns.map((c) => c.name)).toEqual(["id", "a", "b"]);
    expect(r).toEqual(await readCsvWithPapaparse(utf8("a::b\n1::x\n2::y\n"), { delimiter: "::" }));
  });
});
