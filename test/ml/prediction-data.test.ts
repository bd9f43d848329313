import { describe, expect, it } from "vitest";
import { applyFeaturizer, buildFeaturizer, featureKinds } from "../../src/ml/featurize";
import type { Column, Frame } from "../../src/ml/frame";
import { applyBins, computeBins } from "../../src/ml/gbdt/bins";
import { extractLabel } from "../../src/ml/label";
import { binRowsSteps, splitRows } from "../../src/ml/prediction/data";
import { Rng } from "../../src/ml/random";

function table(n: number): Frame {
  const r = new Rng(7);
  const x = Float64Array.from({ length: n }, (_, i) => (i % 17 === 0 ? NaN : r.next() * 100 - 50));
  const day = Float64Array.from({ length: n }, () => Date.UTC(2020, 0, 1) + Math.floor(r.next() * 900) * 86_400_000);
  const codes = Int32Array.from({ length: n }, (_, i) => (i % 11 === 0 ? -1 : r.int(4)));
  const columns: Column[] = [
    { name: "x", kind: "numeric", storage: "numeric", values: x },
    { name: "day", kind: "datetime", storage: "numeric", values: day },
    { name: "plan", kind: "categorical", storage: "dictionary", codes, dictionary: ["a", "b", "c", "d"] },
  ];
  return { rowCount: n, columns };
}

/** The split before it was written in typed arrays: the reference the new one must equal. */
function splitRowsReference(rows: Int32Array, cls: Float64Array | null, fraction: number, seed: number) {
  const rng = new Rng(seed ^ 0x5eed);
  const groups = new Map<number, number[]>();
  for (const r of rows) {
    const k = cls ? cls[r] : 0;
    let g = groups.get(k);
    if (!g) groups.set(k, (g = []));
    g.push(r);
  }
  const val: number[] = [];
  const train: number[] = [];
  for (const k of [...groups.keys()].sort((a, b) => a - b)) {
    const g = Int32Array.from(groups.get(k)!);
    rng.shuffle(g);
    const nv = g.length >= 2 ? Math.max(1, Math.round(g.length * fraction)) : 0;
    for (let i = 0; i < g.length; i++) (i < nv ? val : train).push(g[i]);
  }
  return { train: Int32Array.from(train).sort(), val: Int32Array.from(val).sort() };
}

describe("a prediction model's rows", () => {
  it("are binned feature by feature exactly as the float matrix binned whole", () => {
    const frame = table(3000);
    const spec = buildFeaturizer(frame, { labelColumn: null });
    const m = applyFeaturizer(spec, frame);
    const isCat = featureKinds(spec).map((k) => k.type === "categorical");
    const bins = computeBins(m.data, m.numRows, m.numFeatures, isCat, { maxBins: 40 });
    // unsorted and repeated rows too (an explicit split may give any)
    const train = Int32Array.from({ length: 2000 }, (_, i) => (i * 7) % 3000);
    const val = Int32Array.from([2999, 0, 5, 5, 1234]);
    // a column step after each feature, then the bins
    const steps = binRowsSteps(spec, bins, frame, train, val);
    let r = steps.next();
    let columnSteps = 0;
    for (; !r.done; r = steps.next()) columnSteps += Number(r.value.phase === "column");
    expect(columnSteps).toBe(spec.features.length);
    const b = r.value;
    expect(b.trainBins).toEqual(applyBins(m.data, m.numRows, m.numFeatures, bins, train));
    expect(b.valBins).toEqual(applyBins(m.data, m.numRows, m.numFeatures, bins, val));
  });

  it("are split as before the typed split: stratified by class, and at random for a quantity", () => {
    const n = 5000;
    const r = new Rng(3);
    const cls = Float64Array.from({ length: n }, () => (r.next() < 0.1 ? 2 : r.next() < 0.5 ? 0 : 1));
    const labelled = Int32Array.from({ length: n }, (_, i) => i).filter((i) => i % 13 !== 0);
    for (const seed of [0, 5]) {
      expect(splitRows(labelled, cls, 0.2, seed)).toEqual(splitRowsReference(labelled, cls, 0.2, seed));
      expect(splitRows(labelled, null, 0.1, seed)).toEqual(splitRowsReference(labelled, null, 0.1, seed));
    }
  });

  it("take their classes from the label's distinct values: sorted, missing rows left out", () => {
    const values = Float64Array.from([1, 0, NaN, 1, 1, 0]);
    const lab = extractLabel({ name: "y", kind: "boolean", storage: "numeric", values, booleanLabels: ["no", "yes"] }, 6);
    expect(lab.classes).toEqual(["no", "yes"]);
    expect(Array.from(lab.y)).toEqual([1, 0, NaN, 1, 1, 0]);
    expect(Array.from(lab.rows)).toEqual([0, 1, 3, 4, 5]);
    const codes = Int32Array.from([2, -1, 0, 2, 1]);
    const dict = extractLabel({ name: "y", kind: "categorical", storage: "dictionary", codes, dictionary: ["10", "9", "x"] }, 5);
    expect(dict.classes).toEqual(["10", "9", "x"]);
    expect(Array.from(dict.rows)).toEqual([0, 2, 3, 4]);
    expect(Array.from(dict.y)).toEqual([2, NaN, 0, 2, 1]);
    const numbers = extractLabel({ name: "y", kind: "numeric", storage: "numeric", values: Float64Array.from([10, 9, 10, 2]) }, 4, "classification");
    expect(numbers.classes).toEqual(["2", "9", "10"]);
    expect(Array.from(numbers.y)).toEqual([2, 1, 2, 0]);
  });
});
