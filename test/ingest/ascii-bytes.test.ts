import { describe, expect, it } from "vitest";
import { asciiString, isAscii } from "../../src/ingest/ascii";
import { readCsv, readCsvWithPapaparse } from "../../src/ingest/csv";
import { AsciiTokenizer, byteHash } from "../../src/ingest/csv-ascii-tokenizer";
import type { Newline } from "../../src/ingest/csv-sniff";
import { CsvTokenizer, type FieldSpans, type RecordSink, spanHash } from "../../src/ingest/csv-tokenizer";
import { DictionaryBuilder } from "../../src/ingest/dictionary-builder";
import { parsePlainDecimal, parsePlainDecimalBytes } from "../../src/ingest/numeric-builder";
import { SpanBatch } from "../../src/ingest/span-batch";
import { seededRandom } from "../seeded-random";
import { expectSameFrame, outcome, streamOf, utf8 } from "./helpers";

// The reader tokenizes a piece of ASCII bytes as bytes (AsciiTokenizer, pushBytes,
// parsePlainDecimalBytes) and decodes any other piece for the string path. Each byte function is
// checked against its string twin, and the reader against papaparse's on files that switch
// between the two paths, cut at every position.

const ASCII_CELLS = ["", " ", "NA", "null", "a", " b ", "yes", "1", "2.5", "-3", "007", "1e3", 'ab"c', "x y", "\t"];
const QUOTED = ['"a"', '"b,c"', '"say ""hi"""', '""', '"x\ny"', '"r\r\nn"', '"cr\rx"', '";|\t"', '" 2 "', '"x" ', '"x"\t'];
const BAD = ['"x"y', '"open', 'x"', '"a" b'];

function randomAsciiCsv(r: () => number, delim: string, newline: string, rows: number, bad: boolean): string {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
  const cols = 1 + Math.floor(r() * 4);
  const lines = [Array.from({ length: cols }, (_, j) => `h${j}`).join(delim)];
  for (let i = 0; i < rows; i++) {
    if (r() < 0.03) {
      lines.push(r() < 0.5 ? "" : "  ");
      continue;
    }
    const width = bad && r() < 0.03 ? cols + 1 : cols;
    const cells = Array.from({ length: width }, () => {
      const u = r();
      if (bad && u < 0.02) return pick(BAD);
      if (u < 0.25) return pick(QUOTED);
      return u < 0.6 ? String(Math.floor(r() * 50)) : pick(ASCII_CELLS);
    });
    lines.push(cells.join(delim));
  }
  return lines.join(newline) + (r() < 0.7 ? newline : "");
}

/** What a tokenizer handed over: each record's fields as strings and its line breaks, or the error. */
class Recorder implements RecordSink {
  readonly records: string[] = [];
  record(fields: FieldSpans, breaks: number): void {
    this.records.push(JSON.stringify([Array.from({ length: fields.count }, (_, j) => fields.get(j)), breaks, fields.start]));
  }
  quoteError(code: "MissingQuotes" | "InvalidQuotes", fields: FieldSpans): never {
    throw new Error(`${code} at ${fields.start}`);
  }
}

function run(parse: (final: boolean) => number, final: boolean, sink: Recorder): string[] {
  try {
    return [...sink.records, `end ${parse(final)}`];
  } catch (e) {
    return [...sink.records, (e as Error).message];
  }
}

/** `bytes` as two chunks, cut at `at`. */
function cutAt(bytes: Uint8Array, at: number): ReadableStream<Uint8Array> {
  const parts = [bytes.slice(0, at), bytes.slice(at)].filter((p) => p.length > 0);
  return new ReadableStream({
    pull(controller) {
      const next = parts.shift();
      if (next === undefined) controller.close();
      else controller.enqueue(next);
    },
  });
}

describe("AsciiTokenizer reads ASCII bytes as CsvTokenizer reads their text", () => {
  it("the same records, line breaks, record starts, end offsets and errors, for every prefix, final or not", () => {
    const r = seededRandom(21);
    let compared = 0;
    for (let n = 0; n < 300; n++) {
      const delim = [",", ";", "\t", "|"][n % 4];
      const newline = (["\n", "\r\n", "\r"] as const)[Math.floor(n / 4) % 3] as Newline;
      const text = randomAsciiCsv(r, delim, newline, Math.floor(r() * 8), r() < 0.3);
      const bytes = utf8(text);
      for (let at = 0; at <= text.length; at++) {
        for (const final of [false, true]) {
          const s = new Recorder();
          const b = new Recorder();
          const want = run((f) => new CsvTokenizer(delim, newline, s).parse(text.slice(0, at), f), final, s);
          const got = run((f) => new AsciiTokenizer(delim, newline, b).parse(bytes.subarray(0, at), f), final, b);
          expect(got, `${JSON.stringify(text.slice(0, at))} final ${final}`).toEqual(want);
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(10_000);
  });

  it("hashes a span as spanHash does its text", () => {
    const text = 'user_00110661,"q",2024-10-27,,~';
    const bytes = utf8(text);
    for (let i = 0; i <= text.length; i++) for (let j = i; j <= text.length; j++) expect(byteHash(bytes, i, j)).toBe(spanHash(text, i, j));
  });
});

describe("the byte helpers", () => {
  it("isAscii finds one high byte at any position, length and alignment", () => {
    const buffer = new Uint8Array(80).fill(0x41);
    for (let offset = 0; offset < 5; offset++)
      for (let length = 0; length <= 40; length++) {
        const view = buffer.subarray(offset, offset + length);
        expect(isAscii(view)).toBe(true);
        for (let k = 0; k < length; k++) {
          view[k] = 0x80 + k;
          expect(isAscii(view), `offset ${offset}, length ${length}, at ${k}`).toBe(false);
          view[k] = 0x41;
        }
      }
  });

  it("asciiString gives the bytes' text, short and longer than one conversion", () => {
    const text = Array.from({ length: 10_000 }, (_, i) => String.fromCharCode(i % 128)).join("");
    const bytes = utf8(text);
    for (const [from, to] of [
      [0, 0],
      [3, 17],
      [0, 4096],
      [1, 4098],
      [5, 10_000],
    ])
      expect(asciiString(bytes, from, to)).toBe(text.slice(from, to));
  });

  it("parsePlainDecimalBytes is parsePlainDecimal, bit for bit, on random texts", () => {
    const r = seededRandom(3);
    const alphabet = "0123456789.-+eE x";
    for (let n = 0; n < 200_000; n++) {
      const length = Math.floor(r() * 14);
      let s = "";
      for (let k = 0; k < length; k++) s += alphabet[Math.floor(r() * (r() < 0.8 ? 10 : alphabet.length))];
      const text = `,${s},`;
      const got = parsePlainDecimalBytes(utf8(text), 1, 1 + s.length);
      const want = parsePlainDecimal(text, 1, 1 + s.length);
      if (!Object.is(got, want)) throw new Error(`${JSON.stringify(s)}: ${got} but ${want}`);
    }
  });

  it("pushBytes and pushBatch over bytes give pushSpan's codes (padded cells, missing markers, equal hashes)", () => {
    const r = seededRandom(8);
    const cell = () => {
      const x = r();
      if (x < 0.03) return ["", "NA", " null ", "  "][Math.floor(r() * 4)];
      if (x < 0.06) return ` u${Math.floor(r() * 50000)} `;
      if (x < 0.07) return r() < 0.5 ? "AaBB" : "BBAa";
      return `u${Math.floor(r() * 50000)}`;
    };
    const cells = Array.from({ length: 150_000 }, cell);
    const text = cells.join(",");
    const bytes = utf8(text);
    const spans = new DictionaryBuilder(16);
    const one = new DictionaryBuilder(16);
    const batched = new DictionaryBuilder(16);
    const batch = new SpanBatch();
    let at = 0;
    for (let i = 0; i < cells.length; i++) {
      const end = at + cells[i].length;
      spans.pushSpan(text, at, end, spanHash(text, at, end));
      one.pushBytes(bytes, at, end, byteHash(bytes, at, end));
      batch.push(at, end, byteHash(bytes, at, end));
      if (batch.count >= 1 + (i % 3000) || i === cells.length - 1) {
        batched.pushBatch(batch, "", bytes);
        batch.clear();
      }
      at = end + 1;
    }
    expect(one.large).toBe(true);
    for (const b of [one, batched]) {
      expect(b.dictionary).toEqual(spans.dictionary);
      expect(Array.from(b.finish())).toEqual(Array.from(spans.finish()));
      expect(b.missingCount).toBe(spans.missingCount);
    }
  });
});

describe("readCsv switching between ASCII pieces (bytes) and others (decoded) reads like papaparse", () => {
  it("small ASCII files, cut into two chunks at every position", async () => {
    const r = seededRandom(17);
    for (let n = 0; n < 60; n++) {
      const delim = [",", ";", "\t", "|"][n % 4];
      const newline = ["\n", "\r\n", "\r"][Math.floor(n / 4) % 3];
      let text = randomAsciiCsv(r, delim, newline, 1 + Math.floor(r() * 6), r() < 0.3);
      if (n % 5 === 0) text = `\ufeff${text}`; // a BOM, cut too
      const bytes = utf8(text);
      const want = await outcome(readCsvWithPapaparse(bytes));
      for (let at = 0; at <= bytes.length; at++) {
        const got = await outcome(readCsv(cutAt(bytes, at)));
        if (!got.ok && !want.ok) {
          expect(got.code, `${JSON.stringify(text)} cut at ${at}`).toBe(want.code);
          // papaparse's message has no byte offset: compare without it.
          expect(got.message.replace(/ \(the record starts at byte \d+\)/, ""), `${JSON.stringify(text)} cut at ${at}`).toBe(want.message);
        } else expect(got, `${JSON.stringify(text)} cut at ${at}`).toEqual(want);
      }
    }
  });

  it("multi-byte characters among ASCII, cut at every position", async () => {
    const text = 'name,note,n\r\n"Zoë","a ""€"" b",1\r\nplain,x,2\r\n😀,"\u00a0",3\r\nascii,"q" \u3000,4\r\n';
    const bytes = utf8(text);
    const want = await readCsvWithPapaparse(bytes);
    for (let at = 0; at <= bytes.length; at++) expectSameFrame((await readCsv(cutAt(bytes, at))).frame, want.frame, `cut at ${at}`);
  });

  it("a file of many pieces, some ASCII and some not, whole and streamed", async () => {
    const r = seededRandom(29);
    const lines = ["user,x,note,when"];
    for (let i = 0; i < 120_000; i++) {
      // Now and then a stretch of non-ASCII cells, so some pieces are decoded and some are not.
      const wide = Math.floor(i / 9000) % 3 === 1 && r() < 0.01;
      const note = wide ? (r() < 0.5 ? '"Zoë, ""€"""' : "😀 x") : r() < 0.01 ? '"a ""b"" c"' : r() < 0.5 ? "p" : " q ";
      lines.push(`u${Math.floor(r() * 40000)},${(r() * 100).toFixed(2)},${note},2024-0${1 + (i % 9)}-1${i % 10}`);
    }
    for (const newline of ["\n", "\r\n"]) {
      const bytes = utf8(`\ufeff${lines.join(newline)}${newline}`);
      const want = await readCsvWithPapaparse(bytes);
      expectSameFrame((await readCsv(bytes)).frame, want.frame, "whole");
      for (const size of [65536, 4099, 333_333])
        expectSameFrame((await readCsv(streamOf(bytes, size), { fileBytes: bytes.length })).frame, want.frame, `chunks of ${size}`);
    }
  });

  it("a forced delimiter that is not ASCII: every piece decoded (CsvTokenizer), as papaparse reads it", async () => {
    const text = `a§b§c\n${Array.from({ length: 40_000 }, (_, i) => `${i}§"x§${i % 3}"§ü${i % 5}`).join("\n")}\n`;
    const bytes = utf8(text);
    const want = await readCsvWithPapaparse(bytes, { delimiter: "§" });
    expect(want.frame.columns.map((c) => c.name)).toEqual(["id", "a", "b", "c"]);
    for (const input of [bytes, streamOf(bytes, 65536), streamOf(bytes, 4099)])
      expectSameFrame((await readCsv(input, { delimiter: "§" })).frame, want.frame, "§");
  });

  it("names the byte of a bad record in an ASCII piece after decoded ones", async () => {
    const head = Array.from({ length: 30_000 }, (_, i) => `é${i},${i}`).join("\n");
    const tail = Array.from({ length: 30_000 }, (_, i) => `a${i},${i}`).join("\n");
    const text = `k,v\n${head}\n${tail}\nbad,1,2\n`;
    const bytes = utf8(text);
    const line = 2 + 60_000;
    const byte = utf8(text.slice(0, text.indexOf("bad,1,2"))).length;
    for (const input of [bytes, streamOf(bytes, 65536)]) {
      const got = await outcome(readCsv(input));
      expect(got.ok).toBe(false);
      expect(!got.ok && got.message).toContain(`Line ${line} has 3 fields but the header has 2 columns (the record starts at byte ${byte})`);
    }
  });
});
