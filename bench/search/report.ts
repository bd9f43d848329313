/** bench/search/RESULTS.md: per table, each method's score and time, and the goals of issue 29. */
import { ANCHORS, type AnchorResult, type AnchorsOutput } from "./anchors";
import type { OursResult } from "./ours";
import type { SearchTable } from "./tables";

export interface Row {
  table: SearchTable;
  anchors: AnchorsOutput;
  /** `search: "off"`: one GBDT, today's default. */
  single: OursResult;
  /** No params: the service's default (the search, once issue 29 lands). */
  ours: OursResult;
}

const NAMES: Record<(typeof ANCHORS)[number], string> = { xgb_es: "XGBoost ES", hgb: "HGB", lgb: "LightGBM", lgb_optuna: "LightGBM + Optuna" };
const f = (v: number | undefined, d = 4) => (v === undefined || Number.isNaN(v) ? "—" : v.toFixed(d));
const s = (v: number) => (v < 10 ? v.toFixed(2) : v.toFixed(1));
const signed = (v: number) => (v >= 0 ? "+" : "") + v.toFixed(4);
const yes = (b: boolean) => (b ? "yes" : "**no**");
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const geomean = (xs: number[]) => Math.exp(mean(xs.map(Math.log)));

const score = (row: Row, r: AnchorResult | OursResult) => r[row.table.metric] ?? Number.NaN;
const best = (row: Row) => Math.max(...ANCHORS.map((a) => score(row, row.anchors.results[a])));
const optuna = (row: Row) => row.anchors.results.lgb_optuna;

export function report(rows: Row[], header: string): string {
  const L: string[] = [header, ""];
  L.push(
    "## Scores on the test fold",
    "",
    "Metric: R² (regression), AUC (binary), accuracy (multiclass); higher is better. Best = the best of the four anchors. " +
      'Ours (single) = `params: { search: "off" }`, one GBDT; ours (default) = no params. Goal: ours (default) ≥ best − 0.01 on every table.',
    "",
    `| table | task | metric | ${ANCHORS.map((a) => NAMES[a]).join(" | ")} | best | ours (single) | ours (default) | default − best | ≥ best − 0.01 |`,
    `|---|---|---|${ANCHORS.map(() => "---:|").join("")}---:|---:|---:|---:|---|`,
  );
  for (const row of rows) {
    const b = best(row),
      g = score(row, row.ours) - b;
    L.push(
      `| ${row.table.name} | ${row.table.task} | ${row.table.metric} | ${ANCHORS.map((a) => f(score(row, row.anchors.results[a]))).join(" | ")} | ` +
        `${f(b)} | ${f(score(row, row.single))} | ${f(score(row, row.ours))} | ${signed(g)} | ${yes(g >= -0.01)} |`,
    );
  }
  const avg = (fn: (row: Row) => number) => f(mean(rows.map(fn)));
  L.push(
    `| **average** | | | ${ANCHORS.map((a) => avg((row) => score(row, row.anchors.results[a]))).join(" | ")} | ${avg(best)} | ` +
      `${avg((row) => score(row, row.single))} | ${avg((row) => score(row, row.ours))} | ${signed(mean(rows.map((row) => score(row, row.ours) - best(row))))} | |`,
    "",
  );
  const oursAvg = mean(rows.map((row) => score(row, row.ours)));
  L.push(
    `Average goal (ours (default) above every anchor's average): ${yes(ANCHORS.every((a) => oursAvg > mean(rows.map((row) => score(row, row.anchors.results[a])))))}.`,
    "",
  );

  const cls = rows.filter((row) => row.table.task !== "regression");
  if (cls.length) {
    L.push(
      "Classification, the other metrics (accuracy; log-loss, lower is better):",
      "",
      `| table | ${ANCHORS.map((a) => `acc ${NAMES[a]}`).join(" | ")} | acc ours (default) | ${ANCHORS.map((a) => `log-loss ${NAMES[a]}`).join(" | ")} | log-loss ours (default) |`,
      `|---|${[...ANCHORS, 0, ...ANCHORS, 0].map(() => "---:|").join("")}`,
    );
    for (const row of cls) {
      const rs = [...ANCHORS.map((a) => row.anchors.results[a]), row.ours];
      L.push(`| ${row.table.name} | ${rs.map((r) => f(r.accuracy)).join(" | ")} | ${rs.map((r) => f(r.logloss)).join(" | ")} |`);
    }
    L.push("");
  }

  L.push(
    "## Training time (seconds: wall, then this process's CPU)",
    "",
    "One pass each, one thread each. Ours: the whole `trainPredictionModel` call, building the shared representation " +
      "(profile, bins, self-supervised encoder: the `repr.` column, wall) as a dataset's first model does. " +
      "LightGBM + Optuna: the 40 trials plus the refit. The machine is shared with other work, so wall times wait " +
      "for the cores; the CPU times are the steadier comparison. Goal: ours (default) ≤ LightGBM + Optuna.",
    "",
    `| table | train / val / test rows | ${ANCHORS.map((a) => NAMES[a]).join(" | ")} | ours (single) | ours (default) | repr. | default ÷ Optuna, wall | CPU | ≤ Optuna (CPU) |`,
    `|---|---|${ANCHORS.map(() => "---:|").join("")}---:|---:|---:|---:|---:|---|`,
  );
  const t = (r: { fit_s: number; fit_cpu_s: number }) => `${s(r.fit_s)} / ${s(r.fit_cpu_s)}`;
  for (const row of rows) {
    const { train, val, test } = row.anchors.rows,
      o = optuna(row);
    const tune = o.tune_rows !== undefined && o.tune_rows < train ? ` (tuned on ${o.tune_rows})` : "";
    L.push(
      `| ${row.table.name} | ${train} / ${val} / ${test} | ${ANCHORS.map((a) => t(row.anchors.results[a])).join(" | ")}${tune} | ${t(row.single)} | ${t(row.ours)} | ` +
        `${s(row.ours.representation_s)} | ${(row.ours.fit_s / o.fit_s).toFixed(2)}× | ${(row.ours.fit_cpu_s / o.fit_cpu_s).toFixed(2)}× | ${yes(row.ours.fit_cpu_s <= o.fit_cpu_s)} |`,
    );
  }
  L.push(
    `| **geometric mean ratio** | | | | | | | | | ${geomean(rows.map((row) => row.ours.fit_s / optuna(row).fit_s)).toFixed(2)}× | ` +
      `${geomean(rows.map((row) => row.ours.fit_cpu_s / optuna(row).fit_cpu_s)).toFixed(2)}× | |`,
    "",
    "Rounds kept (early stopping): " +
      rows
        .map(
          (row) => `${row.table.name} ${ANCHORS.map((a) => row.anchors.results[a].rounds).join("/")}, ours ${row.single.rounds}/${row.ours.rounds}`,
        )
        .join("; ") +
      " (XGBoost ES / HGB / LightGBM / Optuna's refit, ours single/default).",
    "",
    "Our search (default): " +
      rows
        .map((row) => {
          const s = row.ours.search;
          return s
            ? `${row.table.name} ${s.method}, ${s.trials} trials (${s.stop}), ${s.ensemble} in the served blend`
            : `${row.table.name} not searched`;
        })
        .join("; ") +
      ".",
  );
  return `${L.join("\n")}\n`;
}
