/**
 * Our side: the service's prediction model trained in-process on a table's fixed folds, as the
 * trainer calls it, and scored on test with the same metrics as the anchors (bench/ml/measure.ts).
 */
import { performance } from "node:perf_hooks";
import { applyFeaturizer } from "../../src/ml/featurize";
import type { Frame } from "../../src/ml/frame";
import { predict } from "../../src/ml/gbdt";
import type { PredictionParams } from "../../src/ml/prediction/model";
import { trainPredictionModel } from "../../src/ml/prediction/train";
import { loadFoldedCsv } from "../../test/ml/helpers/bench-data";
import { takeRows } from "../ml/datasets";
import { classScores, r2 } from "../ml/measure";
import { type SearchTable, tableFiles } from "./tables";

export interface OursResult {
  /** Wall seconds of the whole trainPredictionModel call (shared representation included). */
  fit_s: number;
  /** This process's CPU seconds over that call (the machine is shared: wall time waits for it). */
  fit_cpu_s: number;
  /** Wall seconds of the shared representation within that (built here, as for a dataset's first model). */
  representation_s: number;
  rounds: number;
  /** The search's trials and how it ended (absent for one GBDT). */
  search?: { method: string; trials: number; stop: string; ensemble: number };
  r2?: number;
  accuracy?: number;
  auc?: number;
  logloss?: number;
}

/** The table in memory, split as the anchors see it. */
export interface LoadedTable {
  /** The train and val rows only (train first): the representation must not see the test rows. */
  fitFrame: Frame;
  split: { train: Int32Array; val: Int32Array };
  testFrame: Frame;
}

export function loadTable(t: SearchTable): LoadedTable {
  const { csv, folds: foldsPath } = tableFiles(t);
  const { frame, folds } = loadFoldedCsv(csv, foldsPath);
  const nt = folds.train.length;
  return {
    fitFrame: takeRows(frame, Int32Array.from([...folds.train, ...folds.val])),
    split: { train: Int32Array.from({ length: nt }, (_, i) => i), val: Int32Array.from(folds.val, (_, i) => nt + i) },
    testFrame: takeRows(frame, folds.test),
  };
}

/** One training with `params` (undefined: the service's default), scored on test. */
export function runOurs(t: SearchTable, data: LoadedTable, params: PredictionParams | undefined): OursResult {
  const task = t.task === "regression" ? "regression" : "classification";
  let repDone = 0;
  const t0 = performance.now(),
    cpu0 = process.cpuUsage();
  const res = trainPredictionModel(data.fitFrame, {
    labelColumn: t.target,
    task,
    // one GBDT is early-stopped on the val fold like the anchors; the search gets the train + val
    // rows as a user's table, no split: its own cross-validation (up to 20k rows) or holdout
    split: params?.search === "off" ? data.split : undefined,
    params,
    // "featurize" starts right after the representation is built
    onStage: (s) => {
      if (s === "featurize") repDone = performance.now();
    },
  });
  const cpu = process.cpuUsage(cpu0);
  const fit_s = (performance.now() - t0) / 1000;
  const m = applyFeaturizer(res.featurizer, data.testFrame);
  const out = predict(res.model, m.data, m.numRows);
  return {
    fit_s,
    fit_cpu_s: (cpu.user + cpu.system) / 1e6,
    representation_s: (repDone - t0) / 1000,
    rounds: res.rounds,
    ...(res.search
      ? {
          search: {
            method: res.search.method,
            trials: res.search.trials.length,
            stop: res.search.stopReason,
            ensemble: res.search.ensemble?.members.length ?? 1,
          },
        }
      : {}),
    ...score(t, res.classes, data.testFrame, out),
  };
}

/** out: values (regression), P(classes[1]) per row (binary) or n × k probabilities (multiclass). */
function score(t: SearchTable, classes: string[] | null, testFrame: Frame, out: Float64Array) {
  const col = testFrame.columns.find((c) => c.name === t.target)!;
  if (t.task === "regression") {
    if (col.storage !== "numeric") throw new Error(`${t.name}: regression target must be numeric`);
    return { r2: r2(col.values, out) };
  }
  const index = new Map(classes!.map((c, i) => [c, i]));
  const y = Int32Array.from(
    { length: testFrame.rowCount },
    (_, i) => index.get(col.storage === "dictionary" ? col.dictionary[col.codes[i]] : String(col.values[i])) ?? -1,
  );
  const k = classes!.length;
  const probs = k === 2 ? Float64Array.from({ length: 2 * y.length }, (_, j) => (j % 2 ? out[j >> 1] : 1 - out[j >> 1])) : out;
  return classScores(y, probs, k);
}
