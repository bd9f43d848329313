/**
 * The anomaly benchmark's datasets: a frame of features only (the label column removed), the
 * 0/1 anomaly labels, and the rows the detectors are fitted on and evaluated on.
 * - shuttle: every class but the majority "Rad.Flow" is an anomaly (21% of rows: High 15%,
 *   Bypass 5.6%, the rest < 0.5%); fitted on train + val, evaluated on test (fixed folds);
 * - shuttle_odds: the ODDS convention for the same data (class High dropped, 7.2% anomalies);
 * - lending_club: the rare class "bad" (5.2%) as the anomaly proxy; fixed folds;
 * - cps1988_planted: 1% of rows made anomalous (half: every column copied from a different
 *   random row, breaking the joint structure with ordinary marginals; half: one numeric column
 *   set beyond its observed range); fixed folds;
 * - planted: generated clusters with correlated features and a cluster-bound category, 1%
 *   anomalies of three kinds (a feature moved by ±9, 4.5–9σ; off the correlation; the wrong category for the
 *   cluster); 80/20 seeded split.
 */
import { readFileSync } from "node:fs";
import type { Column, Frame } from "../../src/ml/frame";
import { Rng } from "../../src/ml/random";
import { BENCH_DATA_DIR, loadBenchDataset } from "../../test/ml/helpers/bench-data";
import { takeRows } from "../ml/datasets";

export interface AnomalyBench {
  name: string;
  description: string;
  frame: Frame;
  /** 1 = anomaly, per frame row. */
  labels: Uint8Array;
  fit: Int32Array;
  evaluate: Int32Array;
}

function withoutColumn(frame: Frame, name: string): Frame {
  return { rowCount: frame.rowCount, columns: frame.columns.filter((c) => c.name !== name) };
}

function labelOf(frame: Frame, name: string, isAnomaly: (v: string) => boolean): Uint8Array {
  const col = frame.columns.find((c) => c.name === name);
  if (col?.storage !== "dictionary") throw new Error(`${name} is not a categorical column`);
  return Uint8Array.from(col.codes, (c) => (c >= 0 && isAnomaly(col.dictionary[c]) ? 1 : 0));
}

function fromFolds(name: string, target: string, isAnomaly: (v: string) => boolean, keep?: (v: string) => boolean): AnomalyBench {
  const ds = loadBenchDataset(name);
  let frame = ds.frame;
  let { train, val, test } = ds.folds;
  if (keep) {
    const col = frame.columns.find((c) => c.name === target)!;
    const ok = (r: number) => col.storage === "dictionary" && keep(col.dictionary[col.codes[r]]);
    const kept = Int32Array.from({ length: frame.rowCount }, (_, i) => i).filter(ok);
    const newIndex = new Int32Array(frame.rowCount).fill(-1);
    kept.forEach((r, i) => (newIndex[r] = i));
    const remap = (rows: Int32Array) => rows.filter((r) => newIndex[r] >= 0).map((r) => newIndex[r]);
    [train, val, test] = [remap(train), remap(val), remap(test)];
    frame = takeRows(frame, kept);
  }
  const labels = labelOf(frame, target, isAnomaly);
  const fit = Int32Array.from([...train, ...val]).sort();
  return { name, description: "", frame: withoutColumn(frame, target), labels, fit, evaluate: test };
}

export function shuttle(): AnomalyBench {
  return { ...fromFolds("shuttle", "Class", (v) => v !== "Rad.Flow"), description: "minority classes (all but Rad.Flow)" };
}

export function shuttleOdds(): AnomalyBench {
  const b = fromFolds(
    "shuttle",
    "Class",
    (v) => v !== "Rad.Flow",
    (v) => v !== "High",
  );
  return { ...b, name: "shuttle_odds", description: "ODDS convention: class High dropped, the other minorities" };
}

export function lendingClub(): AnomalyBench {
  return { ...fromFolds("lending_club", "Class", (v) => v === "bad"), description: 'rare class "bad" as proxy' };
}

export function cps1988Planted(): AnomalyBench {
  const ds = loadBenchDataset("cps1988");
  const frame = ds.frame;
  const n = frame.rowCount;
  const rng = new Rng(1988);
  const labels = new Uint8Array(n);
  const columns = frame.columns.map((c): Column => (c.storage === "numeric" ? { ...c, values: c.values.slice() } : { ...c, codes: c.codes.slice() }));
  const numeric = columns.filter((c) => c.storage === "numeric");
  for (let i = 0; i < n; i++) {
    if (rng.next() >= 0.01) continue;
    labels[i] = 1;
    if (rng.next() < 0.5) {
      for (const c of columns) {
        const src = rng.int(n);
        if (c.storage === "numeric") c.values[i] = (frame.columns.find((o) => o.name === c.name) as typeof c).values[src];
        else c.codes[i] = (frame.columns.find((o) => o.name === c.name) as typeof c).codes[src];
      }
    } else {
      const c = numeric[rng.int(numeric.length)];
      if (c.storage !== "numeric") continue;
      let max = -Infinity;
      for (const v of c.values) if (v > max) max = v;
      c.values[i] = max * (1.2 + rng.next());
    }
  }
  const fit = Int32Array.from([...ds.folds.train, ...ds.folds.val]).sort();
  return {
    name: "cps1988_planted",
    description: "1% planted: dependency-breaking + beyond-range",
    frame: { rowCount: n, columns },
    labels,
    fit,
    evaluate: ds.folds.test,
  };
}

function gauss(rng: Rng): number {
  const u = 1 - rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
}

/** Generated: 3 clusters, 6 correlated numeric features, a category bound to the cluster; 1% anomalies. */
export function planted(n = 20_000, seed = 7): AnomalyBench {
  const rng = new Rng(seed);
  const F = 6;
  const cols = Array.from({ length: F }, () => new Float64Array(n));
  const seg = new Int32Array(n);
  const labels = new Uint8Array(n);
  const centers = [
    [0, 0, 0, 0, 0, 0],
    [4, -2, 3, 1, -3, 2],
    [-3, 4, -1, 5, 2, -2],
  ];
  for (let i = 0; i < n; i++) {
    const k = rng.int(3);
    const z = gauss(rng);
    const row = centers[k].map((m, j) => m + (j < 3 ? z * (1 + j * 0.5) + 0.3 * gauss(rng) : gauss(rng)));
    let s = rng.next() < 0.97 ? k : rng.int(4);
    if (rng.next() < 0.01) {
      labels[i] = 1;
      const kind = rng.int(3);
      if (kind === 0) row[rng.int(F)] += (rng.next() < 0.5 ? -6 : 6) * 1.5;
      else if (kind === 1) {
        // off the shared factor: features 0..2 move in opposite directions
        row[0] = centers[k][0] + 2.5;
        row[1] = centers[k][1] - 2.5 * 1.5;
        row[2] = centers[k][2] + 2.5 * 2;
      } else s = (k + 1 + rng.int(2)) % 3;
    }
    for (let j = 0; j < F; j++) cols[j][i] = row[j];
    seg[i] = s;
  }
  const columns: Column[] = [
    { name: "id", kind: "id", storage: "numeric", values: Float64Array.from({ length: n }, (_, i) => i + 1) },
    ...cols.map((values, j): Column => ({ name: `x${j}`, kind: "numeric", storage: "numeric", values })),
    { name: "segment", kind: "categorical", storage: "dictionary", codes: seg, dictionary: ["a", "b", "c", "d"] },
  ];
  const split = new Rng(seed ^ 0xabc);
  const fit: number[] = [];
  const evaluate: number[] = [];
  for (let i = 0; i < n; i++) (split.next() < 0.8 ? fit : evaluate).push(i);
  return {
    name: n === 20_000 ? "planted" : `planted_${n}`,
    description: "3 clusters, 1% anomalies: 4.5–9σ out / off-correlation / wrong category",
    frame: { rowCount: n, columns },
    labels,
    fit: Int32Array.from(fit),
    evaluate: Int32Array.from(evaluate),
  };
}

export function loadAll(): AnomalyBench[] {
  readFileSync(`${BENCH_DATA_DIR}/README.md`); // fail early when the shared data is missing
  return [shuttle(), shuttleOdds(), lendingClub(), cps1988Planted(), planted()];
}
