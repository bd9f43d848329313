import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readCsv, readCsvAllDictionary, readCsvWithPapaparse } from "../../src/ingest/csv";
import { NUMERIC_SAMPLE_ROWS } from "../../src/ingest/csv-table";
import { NumericBuilder, parsePlainDecimal } from "../../src/ingest/numeric-builder";
import { normalizeCell, parseNumber } from "../../src/ml/values";
import { seededRandom } from "../seeded-random";
import { BENCH, col, expectSameFrame, streamOf, utf8 } from "./helpers";

// Past NUMERIC_SAMPLE_ROWS records, CSV columns of numbers are read straight into numbers. The
// frame must be exactly the one dictionary encoding + inferColumn gives (readCsvAllDictionary, the
// reader before), unless a column falls back after the sample: then it is the frame of the same
// file with the earlier cells of that column spelled as their numbers print.

/** Plain decimals of many shapes, and some that are not plain or not numbers at all. */
function randomNumberText(r: () => number): string {
  const digits = (n: number) => Array.from({ length: n }, () => String(Math.floor(r() * 10))).join("");
  const u = r();
  if (u < 0.15) return String((r() - 0.5) * 10 ** Math.floor(r() * 40 - 20));
  if (u < 0.3) return ((r() - 0.5) * 10 ** Math.floor(r() * 8)).toFixed(Math.floor(r() * 9));
  if (u < 0.4) return ((r() - 0.5) * 1e6).toExponential(Math.floor(r() * 18));
  if (u < 0.45) return (r() * 1e6).toPrecision(1 + Math.floor(r() * 21));
  // Hand-made: sign, integer digits (maybe none, maybe leading zeros), dot, fraction, exponent.
  const sign = r() < 0.2 ? "-" : r() < 0.1 ? "+" : "";
  const int = r() < 0.1 ? "" : r() < 0.1 ? `0${digits(Math.floor(r() * 3))}` : digits(1 + Math.floor(r() * (r() < 0.2 ? 25 : 10)));
  const frac = r() < 0.4 ? "" : `.${digits(Math.floor(r() * (r() < 0.2 ? 25 : 8)))}`;
  const exp = r() < 0.7 ? "" : `${r() < 0.5 ? "e" : "E"}${r() < 0.3 ? "-" : r() < 0.2 ? "+" : ""}${digits(Math.floor(r() * 4))}`;
  let s = `${sign}${int}${frac}${exp}`;
  const odd = r();
  if (odd < 0.02) s = ` ${s}`;
  else if (odd < 0.04) s = `${s}x`;
  else if (odd < 0.05) s = `${s}.`;
  else if (odd < 0.06) s = "";
  return s;
}

describe("parsePlainDecimal: exactly parseNumber's double, or NaN (ask parseNumber)", () => {
  it("agrees with parseNumber bit for bit on a million random texts, and handles plain ones", () => {
    const r = seededRandom(7);
    let handled = 0;
    let numbers = 0;
    let plainShort = 0;
    let plainShortHandled = 0;
    for (let n = 0; n < 1_000_000; n++) {
      const s = randomNumberText(r);
      // Inside a longer text, as the tokenizer hands spans over.
      const text = `,${s},`;
      const fast = parsePlainDecimal(text, 1, 1 + s.length);
      const want = parseNumber(s);
      if (want !== undefined) numbers++;
      if (fast === fast) {
        handled++;
        if (!Object.is(fast, want)) throw new Error(`${JSON.stringify(s)}: ${fast} but parseNumber ${want}`);
      }
      // Plain decimals of at most 15 significant digits and small exponents are all handled.
      if (want !== undefined && /^[+-]?\d{1,8}(\.\d{0,7})?$/.test(s)) {
        plainShort++;
        if (fast === fast) plainShortHandled++;
      }
    }
    expect(numbers).toBeGreaterThan(700_000);
    expect(handled).toBeGreaterThan(500_000);
    expect(plainShort).toBeGreaterThan(50_000);
    expect(plainShortHandled).toBe(plainShort);
  });

  it("is exact at the edges: rounding cases, 2^53, 10^±22, -0, leading zeros", () => {
    const cases = [
      "0",
      "-0",
      "-0.0",
      "+0e5",
      "0.1",
      "0.3",
      "-.5",
      "5.",
      "+5",
      "1e22",
      "1e23",
      "1e-22",
      "1e-23",
      "9007199254740991",
      "9007199254740992",
      "9007199254740993",
      "900719925474099.3",
      "0.000000000000000000001",
      "123456789012345e-22",
      "4.35",
      "2.675",
      "1.005",
      "0.1e1",
      "1E2",
      "1e+2",
      "007",
      "-01",
      "00.5",
      "0.5",
      ".",
      "-",
      "e5",
      "1e",
      "1e+",
      "1.2.3",
      "1,5",
      " 1",
      "1 ",
      "NaN",
      "Infinity",
      "1e400",
      "0x10",
      "1_000",
    ];
    for (const s of cases) {
      const fast = parsePlainDecimal(s, 0, s.length);
      if (fast === fast) expect(Object.is(fast, parseNumber(s)), s).toBe(true);
    }
    expect(Object.is(parsePlainDecimal("-0", 0, 2), -0)).toBe(true);
    expect(parsePlainDecimal("007", 0, 3)).toBeNaN();
    expect(parsePlainDecimal("1e", 0, 2)).toBeNaN();
  });
});

describe("NumericBuilder: the cells normalizeCell + parseNumber read", () => {
  it("reads missing markers, whitespace and every number spelling as dictionary encoding would, and refuses the rest", () => {
    const cells = ["1.5", " 2 ", "NA", "", "null", "-0", "1e3", "+.5", "5.", '"', "\u00a05", "007", "1e400", "abc", "N/A", "\t-3.25\t", "1,5"];
    for (const raw of cells) {
      const b = new NumericBuilder();
      const text = `x${raw}y`;
      const ok = b.pushSpan(text, 1, 1 + raw.length);
      const s = normalizeCell(raw);
      const want = s === null ? NaN : parseNumber(s);
      expect(ok, raw).toBe(want !== undefined);
      const values = b.finish();
      expect(values.length, raw).toBe(ok ? 1 : 0);
      if (ok) expect(Object.is(values[0], want), raw).toBe(true);
      expect(b.missingCount, raw).toBe(s === null ? 1 : 0);
    }
  });

  it("grows past its capacity and falls back to a dictionary of the numbers' own spellings", () => {
    const b = new NumericBuilder(16);
    for (let i = 0; i < 1000; i++) expect(b.push(i % 7 === 0 ? "NA" : `${i}.50`)).toBe(true);
    expect(b.finish().length).toBe(1000);
    const d = b.toDictionary();
    const codes = d.finish();
    expect(codes.length).toBe(1000);
    expect(d.missingCount).toBe(143);
    expect(codes[0]).toBe(-1);
    expect(d.dictionary[codes[1]]).toBe("1.5");
    expect(d.dictionary[codes[999]]).toBe("999.5");
    const z = new NumericBuilder();
    z.push("-0");
    z.push("0");
    expect(z.toDictionary().dictionary).toEqual(["-0", "0"]);
  });
});

/** A CSV of `rows` records from per-column cell makers. */
function table(columns: Record<string, (i: number, r: () => number) => string>, rows: number, seed = 1): string {
  const r = seededRandom(seed);
  const names = Object.keys(columns);
  const lines = [names.join(",")];
  for (let i = 0; i < rows; i++) lines.push(names.map((n) => columns[n](i, r)).join(","));
  return `${lines.join("\n")}\n`;
}

const ROWS = NUMERIC_SAMPLE_ROWS * 3 + 17;

/** Numeric columns of many kinds, to read typed and compare with the dictionary reader. */
const NUMERIC_COLUMNS: Record<string, (i: number, r: () => number) => string> = {
  price: (_, r) => (r() * 1000).toFixed(2),
  score: (_, r) => String((r() - 0.5) * 10 ** Math.floor(r() * 12 - 6)),
  spelled: (_, r) => {
    for (;;) {
      const s = randomNumberText(r);
      if (parseNumber(s) !== undefined && s.trim() === s) return s;
    }
  },
  small_int: (_, r) => String(Math.floor(r() * 10)),
  with_missing: (_, r) => (r() < 0.1 ? ["", "NA", "null", " NaN ", "None"][Math.floor(r() * 5)] : (r() * 100).toFixed(3)),
  padded: (_, r) => (r() < 0.05 ? ` ${Math.floor(r() * 50)} ` : r() < 0.05 ? `"${Math.floor(r() * 50)}"` : String(Math.floor(r() * 50))),
  user_id: (i) => String(1_000_000 + ((i * 7919) % ROWS)), // unique integers named like an id
  counter: (i) => String(i), // a run 0..n-1: a row counter
  near_id: (i) => (i === 5 ? "4.0" : String(i)), // unique strings, not unique numbers ("4" and "4.0")
  id_missing: (i) => (i === ROWS - 1 ? "" : String(i + 1)), // unique but one missing: numeric
  late: (i, r) => (i < NUMERIC_SAMPLE_ROWS + 10 ? "" : (r() * 5).toFixed(1)), // empty through the sample
  empty: () => "",
  zeros: (_, r) => (r() < 0.5 ? "-0" : "0"),
  big: (_, r) => `1${Math.floor(r() * 1e9)}${Math.floor(r() * 1e9)}.${Math.floor(r() * 1e9)}`, // past the fast path
  label: (_, r) => (r() < 0.5 ? "yes" : "no"),
  when: (i) => `2024-01-${String(1 + (i % 28)).padStart(2, "0")}`,
  city: (_, r) => ["Oslo", "Lima", "Pune"][Math.floor(r() * 3)],
  zip: (_, r) => String(Math.floor(r() * 100000)).padStart(5, "0"),
};

describe("readCsv with typed numeric columns gives the dictionary reader's frame", () => {
  it("on numeric, id-like, missing, late-starting and empty columns, whole and streamed", async () => {
    const text = table(NUMERIC_COLUMNS, ROWS);
    const bytes = utf8(text);
    const want = (await readCsvAllDictionary(bytes)).frame;
    expect(col(want, "user_id").kind).toBe("id");
    expect(col(want, "counter").kind).toBe("id");
    expect(col(want, "near_id").kind).toBe("numeric");
    expect(col(want, "id_missing").kind).toBe("numeric");
    expect(col(want, "zip").kind).toBe("categorical");
    expectSameFrame((await readCsv(bytes)).frame, want, "one buffer");
    expectSameFrame((await readCsv(streamOf(bytes, 4099))).frame, want, "streamed");
    expectSameFrame((await readCsvWithPapaparse(bytes)).frame, want, "papaparse tokenizer");
    // CRLF and a semicolon delimiter go through the same builders.
    const semi = utf8(text.replaceAll(",", ";").replaceAll("\n", "\r\n"));
    expectSameFrame((await readCsv(semi)).frame, (await readCsvAllDictionary(semi)).frame, "CRLF ;");
  });

  it("at sizes around the sample (the switch at the last record, one before, one after)", async () => {
    for (const rows of [NUMERIC_SAMPLE_ROWS - 1, NUMERIC_SAMPLE_ROWS, NUMERIC_SAMPLE_ROWS + 1]) {
      const bytes = utf8(table(NUMERIC_COLUMNS, rows, rows));
      expectSameFrame((await readCsv(bytes)).frame, (await readCsvAllDictionary(bytes)).frame, `${rows} rows`);
    }
  });

  it("on random numeric-looking tables", async () => {
    const r = seededRandom(99);
    for (let n = 0; n < 6; n++) {
      const columns: Record<string, (i: number, r: () => number) => string> = {};
      const names = Object.keys(NUMERIC_COLUMNS);
      for (let j = 0; j < 4; j++) {
        const name = names[Math.floor(r() * names.length)];
        columns[`${name}_${j}`] = NUMERIC_COLUMNS[name];
      }
      const bytes = utf8(table(columns, NUMERIC_SAMPLE_ROWS + Math.floor(r() * 5000), n));
      expectSameFrame((await readCsv(bytes)).frame, (await readCsvAllDictionary(bytes)).frame, `table ${n}`);
    }
  });

  it("whatever fileBytes says (the columns sized from it): right, too small, too large, zero", async () => {
    const columns = { ...NUMERIC_COLUMNS, turns_text: (i: number) => (i === ROWS - 5 ? "many" : String(i % 97)) };
    const bytes = utf8(table(columns, ROWS));
    const want = (await readCsvAllDictionary(bytes)).frame;
    expect(col(want, "turns_text").storage).toBe("dictionary");
    for (const fileBytes of [bytes.length, Math.floor(bytes.length / 3), bytes.length * 5, 0, 1]) {
      expectSameFrame((await readCsv(streamOf(bytes, 4099), { fileBytes })).frame, want, `fileBytes ${fileBytes}`);
      expectSameFrame(
        (await readCsv(bytes, { fileBytes, rawText: true })).frame,
        (await readCsvAllDictionary(bytes, { rawText: true })).frame,
        `rawText, fileBytes ${fileBytes}`,
      );
    }
  });

  it("keeps the file's id column and rawText columns as before", async () => {
    const bytes = utf8(table({ id: (i) => String(ROWS - i), x: (_, r) => (r() * 9).toFixed(2), n: (i) => String(i % 5) }, ROWS));
    const typed = (await readCsv(bytes)).frame;
    expectSameFrame(typed, (await readCsvAllDictionary(bytes)).frame, "file id");
    expect(col(typed, "id").kind).toBe("id");
    const raw = (await readCsv(bytes, { rawText: true })).frame;
    expectSameFrame(raw, (await readCsvAllDictionary(bytes, { rawText: true })).frame, "rawText");
    expect(col(raw, "x").storage).toBe("dictionary");
  });

  it("on the benchmark tables", async () => {
    for (const name of ["fertility", "diamonds", "cps1988", "shuttle", "lending_club"]) {
      const bytes = new Uint8Array(readFileSync(`${BENCH}/${name}.csv`));
      const want = (await readCsvAllDictionary(bytes)).frame;
      expect(want.rowCount).toBeGreaterThan(NUMERIC_SAMPLE_ROWS);
      expectSameFrame((await readCsv(streamOf(bytes, 65536))).frame, want, name);
    }
  });
});

describe("a typed column meeting a non-number after the sample falls back to dictionary encoding", () => {
  /** The file's earlier cells of the fallen-back column spelled as their numbers print. */
  const canonical = (cell: string) => {
    const s = normalizeCell(cell);
    if (s === null) return cell;
    const v = parseNumber(s);
    return v === undefined ? cell : Object.is(v, -0) ? "-0" : String(v);
  };

  it("gives the frame of the file with those cells in canonical spelling (the kind inferColumn gives)", async () => {
    const at = NUMERIC_SAMPLE_ROWS + 500;
    const cases: Array<[string, (i: number, r: () => number) => string, string]> = [
      // name, cells, expected kind
      ["amount", (i, r) => (i === at ? "n/a?" : (r() * 100).toFixed(2)), "categorical"], // "1.50" → "1.5"
      ["order_id", (i) => (i === at ? "ORD-17" : String(i + 1)), "id"], // unique, named like an id
      ["code", (i) => (i === at ? "A1B2C3" : String(100000 + i)), "id"], // unique codes with a digit
      ["when", (i) => (i === at ? "2024-01-02" : String(i % 10)), "categorical"],
      ["mixed", (i, r) => (i >= at && r() < 0.3 ? "x" : r() < 0.1 ? "NA" : `${Math.floor(r() * 20)}.0`), "categorical"],
      ["zeros", (i, r) => (i === at ? "zero" : r() < 0.5 ? "-0" : "0.0"), "categorical"],
      ["late", (i) => (i < at ? "" : "word"), "categorical"], // no number before: nothing to respell
    ];
    for (const [name, cell, kind] of cases) {
      const columns = { [name]: cell, other: (_: number, r: () => number) => (r() * 3).toFixed(1) };
      const text = table(columns, ROWS, 5);
      const got = (await readCsv(utf8(text))).frame;
      // The same file with the fallen-back column's cells before the first non-number respelled.
      const lines = text.split("\n");
      const notNumber = (line: string) => {
        const s = normalizeCell(line.split(",")[0]);
        return s !== null && parseNumber(s) === undefined;
      };
      const bad = lines.findIndex((line, k) => k > 0 && line !== "" && notNumber(line));
      expect(bad - 1, name).toBeGreaterThanOrEqual(NUMERIC_SAMPLE_ROWS); // typed in the sample, fell back after
      const respelled = lines.map((line, k) => {
        if (k === 0 || k >= bad || line === "") return line;
        const [c, o] = line.split(",");
        return `${canonical(c)},${o}`;
      });
      const want = (await readCsvAllDictionary(utf8(respelled.join("\n")))).frame;
      expect(col(got, name).kind, name).toBe(kind);
      expectSameFrame(got, want, name);
      // The papaparse tokenizer falls back the same way.
      expectSameFrame((await readCsvWithPapaparse(utf8(text))).frame, want, `${name} (papaparse)`);
      // And where no spelling changes, it is exactly the dictionary reader's frame.
      if (respelled.join("\n") === text) expectSameFrame(got, (await readCsvAllDictionary(utf8(text))).frame, `${name} unchanged`);
    }
  });

  it("normalizes the spelling of the earlier values, e.g. 1.50 → 1.5", async () => {
    const rows = NUMERIC_SAMPLE_ROWS + 2;
    const text = table({ v: (i) => (i === rows - 1 ? "oops" : i === 0 ? "1.50" : i === 1 ? "1e3" : "2"), w: (i) => String(i % 3) }, rows);
    const c = col((await readCsv(utf8(text))).frame, "v");
    expect(c.storage).toBe("dictionary");
    if (c.storage !== "dictionary") return;
    expect(c.dictionary).toEqual(["1.5", "1000", "2", "oops"]);
    // Before the sample is over, nothing is typed: the spelling is kept.
    const small = table({ v: (i) => (i === 3 ? "oops" : i === 0 ? "1.50" : "2"), w: (i) => String(i % 3) }, 10);
    const d = col((await readCsv(utf8(small))).frame, "v");
    expect(d.storage === "dictionary" && d.dictionary).toEqual(["1.50", "2", "oops"]);
  });
});
