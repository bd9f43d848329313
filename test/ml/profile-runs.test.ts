import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readCsv } from "../../src/ingest/csv";
import type { Column, DictionaryColumn, NumericColumn } from "../../src/ml/frame";
import { type ColumnProfile, profileColumn } from "../../src/ml/profile";
import { BENCH } from "../ingest/helpers";
import { seededRandom } from "../seeded-random";

// profileColumn avoids Float64Array.sort: numeric columns already ascending are read as they are,
// values on a grid (integers, decimals of up to 9 places, whole seconds or days) are counted per
// grid point or sorted as 32-bit keys, the rest radix-sorted; booleans and dictionary codes are
// counted without branches. Its profile must be the one the former code gives, bit for bit: the
// reference is the former code, kept here verbatim.

function referenceNumericProfile(column: NumericColumn): ColumnProfile {
  const base = { name: column.name, type: column.kind, min: null, max: null, mean: null, std: null, top_values: null };
  const present = column.values.filter((v) => !Number.isNaN(v)).sort();
  const n = present.length;
  let distinct = n > 0 ? 1 : 0;
  for (let i = 1; i < n; i++) if (present[i] !== present[i - 1]) distinct++;
  const summary = { ...base, missing_count: column.values.length - n, distinct_count: distinct };
  if (n === 0) return summary;
  if (column.kind === "boolean") {
    let trues = 0;
    for (const v of present) if (v !== 0) trues++;
    const top = [
      { value: true, count: trues },
      { value: false, count: n - trues },
    ]
      .filter((t) => t.count > 0)
      .sort((a, b) => b.count - a.count);
    return { ...summary, mean: trues / n, top_values: top };
  }
  if (column.kind === "datetime") {
    return { ...summary, min: new Date(present[0]).toISOString(), max: new Date(present[n - 1]).toISOString() };
  }
  let count = 0;
  let mean = 0;
  let m2 = 0;
  let integers = true;
  for (const x of present) {
    if (x === Infinity || x === -Infinity) continue;
    count++;
    const d = x - mean;
    mean += d / count;
    m2 += d * (x - mean);
    if (integers && !Number.isInteger(x)) integers = false;
  }
  if (count === 0) return summary;
  let lo = 0;
  while (!Number.isFinite(present[lo])) lo++;
  let hi = present.length - 1;
  while (!Number.isFinite(present[hi])) hi--;
  const numeric = { ...summary, min: present[lo], max: present[hi], mean, std: count > 1 ? Math.sqrt(m2 / (count - 1)) : null };
  return column.kind === "numeric" ? { ...numeric, integer_valued: integers } : numeric;
}

function referenceDictionaryProfile(column: DictionaryColumn): ColumnProfile {
  const base = { name: column.name, type: column.kind, min: null, max: null, mean: null, std: null, top_values: null };
  const counts = new Float64Array(column.dictionary.length);
  let missing = 0;
  for (const c of column.codes) c < 0 ? missing++ : counts[c]++;
  let distinct = 0;
  for (const n of counts) if (n > 0) distinct++;
  const top: number[] = [];
  for (let i = 0; i < counts.length; i++) {
    if (counts[i] === 0) continue;
    if (top.length === 5 && counts[i] <= counts[top[4]]) continue;
    let at = top.length;
    while (at > 0 && counts[top[at - 1]] < counts[i]) at--;
    top.splice(at, 0, i);
    if (top.length > 5) top.pop();
  }
  const topValues = column.kind === "id" ? null : top.map((i) => ({ value: column.dictionary[i], count: counts[i] }));
  return { ...base, missing_count: missing, distinct_count: distinct, top_values: topValues };
}

function expectSameProfile(got: ColumnProfile, want: ColumnProfile, what: string): void {
  expect(got, what).toEqual(want);
  for (const key of ["min", "max", "mean", "std"] as const) {
    if (typeof want[key] === "number") expect(Object.is(got[key], want[key]), `${what}: ${key} ${got[key]} vs ${want[key]}`).toBe(true);
  }
}

const DAY = 86_400_000;

/** Columns of many shapes: each maker returns one value (NaN = missing). */
const MAKERS: Record<string, (i: number, r: () => number, n: number) => number> = {
  smallInts: (_, r) => Math.floor(r() * 100) - 20,
  wideInts: (_, r) => Math.floor(r() * 1e9),
  ascending: (i) => i * 3 + 7,
  ascendingRepeats: (i) => Math.floor(i / 4),
  cents: (_, r) => Math.round(r() * 1e5) / 100,
  fourPlaces: (_, r) => Math.round((r() - 0.5) * 1e4) / 1e4,
  tenths: (_, r) => Math.round(r() * 500) / 10,
  floats: (_, r) => (r() - 0.5) * 1e3,
  tiny: (_, r) => r() * 1e-300,
  huge: (_, r) => Math.floor(r() * 5) * 1e300,
  nearSafe: (_, r) => 2 ** 53 - Math.floor(r() * 10),
  bigOffset: (_, r) => 1e15 + Math.floor(r() * 100),
  days: (_, r) => Date.UTC(2020, 0, 1) + Math.floor(r() * 2000) * DAY,
  times: (_, r) => Date.UTC(2020, 0, 1) + Math.floor(r() * 1e10),
  bools: (_, r) => (r() < 0.3 ? 1 : 0),
  constant: () => 42.5,
  withInfinity: (_, r) => (r() < 0.01 ? (r() < 0.5 ? Infinity : -Infinity) : Math.floor(r() * 10)),
  negZero: (_, r) => (r() < 0.2 ? -0 : r() < 0.5 ? 0 : Math.floor(r() * 3)),
  lateMisfit: (i, r, n) => (i === n - 1 ? 0.123456 : Math.floor(r() * 10)),
  // Grids too wide to count per point: sorted as 32-bit keys (or, past 2^32 points, as doubles).
  sevenPlaces: (_, r) => Math.round((r() - 0.5) * 1e8) / 1e7,
  ninePlaces: (_, r) => Math.round(r() * 1e9) / 1e9,
  keysEdge: (_, r) => Math.floor(r() * 2 ** 32) - 2 ** 31,
  pastKeys: (_, r) => Math.floor(r() * 2 ** 33),
  seconds: (_, r) => Date.UTC(2020, 0, 1) + Math.floor(r() * 1e8) * 1000,
  lateMisfitWide: (i, r, n) => (i === n - 1 ? 0.5 : Math.floor(r() * 1e7)),
  // Radix-sorted doubles with −0, ±Infinity and subnormals.
  negZeroFloats: (_, r) => (r() < 0.1 ? -0 : r() < 0.1 ? 0 : (r() - 0.5) * 10),
  floatsWithInfinity: (_, r) => (r() < 0.05 ? (r() < 0.5 ? Infinity : -Infinity) : (r() - 0.5) * 1e-310),
  onlyInfinity: (_, r) => (r() < 0.5 ? Infinity : -Infinity),
  onlyPlusInfinity: () => Infinity,
  onlyNegZero: () => -0,
  ascendingInfinite: (i, _, n) => (i === 0 ? -Infinity : i === n - 1 ? Infinity : i / 8),
  ascendingNegZero: (i) => (i === 0 ? -0 : i),
  boolsNegZero: (_, r) => (r() < 0.3 ? 1 : r() < 0.5 ? -0 : 0),
  boolsStray: (_, r) => (r() < 0.01 ? 0.5 : r() < 0.3 ? 1 : 0),
  boolsOnes: () => 1,
};

function column(name: string, kind: NumericColumn["kind"], values: Float64Array): NumericColumn {
  return { name, kind, storage: "numeric", values };
}

describe("profileColumn of numeric storage: the sorted copy's profile, bit for bit", () => {
  it("on random columns of many shapes, kinds and missing shares", () => {
    const r = seededRandom(3);
    for (const [name, make] of Object.entries(MAKERS)) {
      for (const rows of [0, 1, 2, 7, 1000, 5000]) {
        for (const missing of [0, 0.1, 1]) {
          const values = new Float64Array(rows);
          for (let i = 0; i < rows; i++) values[i] = r() < missing ? NaN : make(i, r, rows);
          // Every kind for every shape: a boolean or datetime column holding other values takes the general path.
          const kinds: Array<NumericColumn["kind"]> = ["numeric", "id", "boolean", "datetime"];
          for (const kind of kinds) {
            const c = column(name, kind, values);
            let want: ColumnProfile | Error;
            try {
              want = referenceNumericProfile(c);
            } catch (e) {
              want = e as Error;
            }
            const what = `${name} ${kind} ${rows} rows, ${missing} missing`;
            if (want instanceof Error) expect(() => profileColumn(c), what).toThrow(want.message);
            else expectSameProfile(profileColumn(c), want, what);
          }
        }
      }
    }
  });

  it("on the benchmark tables as readCsv reads them", async () => {
    for (const name of ["fertility", "diamonds", "cps1988", "shuttle", "lending_club"]) {
      const { frame } = await readCsv(new Uint8Array(readFileSync(`${BENCH}/${name}.csv`)));
      for (const c of frame.columns as Column[]) {
        if (c.storage === "numeric") expectSameProfile(profileColumn(c), referenceNumericProfile(c), `${name}.${c.name}`);
      }
    }
  });
});

describe("profileColumn of dictionary storage: the former counts", () => {
  it("on random codes, with missing codes and codes outside the dictionary", () => {
    const r = seededRandom(5);
    for (const size of [0, 1, 3, 300]) {
      for (const rows of [0, 1, 1000]) {
        for (const missing of [0, 0.1, 1]) {
          for (const invalid of [0, 0.01]) {
            const codes = new Int32Array(rows);
            for (let i = 0; i < rows; i++) {
              codes[i] = r() < missing ? -1 : r() < invalid ? (r() < 0.5 ? -2 : size + 1) : Math.floor(r() * size);
              if (size === 0 && codes[i] >= 0 && codes[i] < 1) codes[i] = -1;
            }
            const dictionary = Array.from({ length: size }, (_, i) => `v${i}`);
            for (const kind of ["categorical", "text", "id"] as const) {
              const c: DictionaryColumn = { name: "c", kind, storage: "dictionary", codes, dictionary };
              expect(profileColumn(c), `${size} values, ${rows} rows, ${missing} missing, ${invalid} invalid, ${kind}`).toEqual(
                referenceDictionaryProfile(c),
              );
            }
          }
        }
      }
    }
  });
});
