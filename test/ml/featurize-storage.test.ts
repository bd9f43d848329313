import { describe, expect, it } from "vitest";
import { readCsv } from "../../src/ingest/csv";
import { DictionaryBuilder } from "../../src/ingest/dictionary-builder";
import { inferColumn } from "../../src/ingest/infer";
import { applyFeaturizer, buildFeaturizer, type FeatureMatrix } from "../../src/ml/featurize";
import type { Column, Frame } from "../../src/ml/frame";

// The same rows as a CSV would hold them: raw cells, with whitespace and missing markers.
const RAW: Record<string, string[]> = {
  subscribed: ["yes", "no", "unknown", " no", "yes", "NA"],
  price: ["2.50", "3.0", "abc", "2.50", "", "3.0"],
  active: ["T", "f", "t", "F", "", "t"],
  when: ["2024-03-10 23:30", "2024-03-11T08:00:00+02:00", "2023-12-31", "N/A", "2024-06-01T12:00:00Z", "2024-03-10 23:30"],
  amount: ["1.5", "NA", "-1e3", "n/a", " 42 ", "0.25"],
};
const ROWS = 6;

/** A column as ingestion types it: normalized dictionary, then inferred. */
function typed(name: string, cells: string[]): Column {
  const b = new DictionaryBuilder();
  for (const s of cells) b.push(s);
  return inferColumn(name, b.dictionary, b.finish(), b.missingCount, cells.length);
}

/** A column kept as raw text (dictionary storage, strings as written). */
function text(name: string, cells: (string | null)[]): Column {
  const dictionary = [...new Set(cells.filter((s): s is string => s !== null))];
  return {
    name,
    kind: "categorical",
    storage: "dictionary",
    dictionary,
    codes: Int32Array.from(cells, (s) => (s === null ? -1 : dictionary.indexOf(s))),
  };
}

const columnOf = (m: FeatureMatrix, j: number) => Array.from({ length: m.numRows }, (_, i) => m.data[i * m.numFeatures + j]);

describe("applyFeaturizer accepts any storage", () => {
  const train: Frame = { rowCount: ROWS, columns: Object.entries(RAW).map(([n, cells]) => typed(n, cells)) };
  const spec = JSON.parse(JSON.stringify(buildFeaturizer(train)));

  it("the training frame is typed as ingestion types it", () => {
    expect(train.columns.map((c) => c.kind)).toEqual(["categorical", "categorical", "boolean", "datetime", "numeric"]);
  });

  it("an all-text frame of the same rows gives the identical matrix", () => {
    const raw: Frame = { rowCount: ROWS, columns: Object.entries(RAW).map(([n, cells]) => text(n, cells)) };
    const a = applyFeaturizer(spec, train);
    const b = applyFeaturizer(spec, raw);
    expect(b.numFeatures).toBe(a.numFeatures);
    for (let j = 0; j < a.numFeatures; j++) expect([spec.features[j].name, columnOf(b, j)]).toEqual([spec.features[j].name, columnOf(a, j)]);
    // sanity: the values are really there, not NaN everywhere
    const f = (name: string) =>
      columnOf(
        a,
        spec.features.findIndex((d: { name: string }) => d.name === name),
      );
    expect(f("amount")).toEqual([1.5, NaN, -1000, NaN, 42, 0.25]);
    expect(f("active")).toEqual([1, 0, 1, 0, NaN, 1]);
    expect(f("when.hour")).toEqual([23, 6, 0, NaN, 12, 23]); // zone-less = UTC
  });

  it("missing cells as codes -1 or as marker strings are the same", () => {
    const raw: Frame = {
      rowCount: ROWS,
      columns: Object.entries(RAW).map(([n, cells]) =>
        text(
          n,
          cells.map((s) => (s.trim() === "" ? null : s)),
        ),
      ),
    };
    expect(applyFeaturizer(spec, raw)).toEqual(applyFeaturizer(spec, train));
  });

  it("a categorical column typed differently at inference keeps the training vocabulary's spelling", () => {
    // an inference file with only yes/no and only numbers is typed boolean / numeric on its own
    const infer: Frame = { rowCount: 3, columns: [typed("subscribed", ["no", "yes", "no"]), typed("price", ["3.0", "2.50", "2.5"])] };
    expect(infer.columns.map((c) => c.kind)).toEqual(["boolean", "numeric"]);
    const m = applyFeaturizer(spec, infer);
    const vocab = (name: string) => spec.features.find((d: { name: string }) => d.name === name).vocabulary as string[];
    expect(columnOf(m, 0)).toEqual(["no", "yes", "no"].map((s) => vocab("subscribed").indexOf(s)));
    // "2.5" reads as the same number as the training spelling "2.50" (the documented limitation)
    expect(columnOf(m, 1)).toEqual(["3.0", "2.50", "2.50"].map((s) => vocab("price").indexOf(s)));
  });

  it("end to end: a CSV read typed and read with rawText featurize identically", async () => {
    const header = Object.keys(RAW).join(",");
    const lines = Array.from({ length: ROWS }, (_, i) =>
      Object.values(RAW)
        .map((c) => c[i])
        .join(","),
    );
    const bytes = new TextEncoder().encode(`${[header, ...lines].join("\n")}\n`);
    const typedFrame = (await readCsv(bytes)).frame;
    const rawFrame = (await readCsv(bytes, { rawText: true })).frame;
    const csvSpec = buildFeaturizer(typedFrame);
    expect(csvSpec.features.length).toBe(spec.features.length);
    expect(applyFeaturizer(csvSpec, rawFrame)).toEqual(applyFeaturizer(csvSpec, typedFrame));
  });
});
