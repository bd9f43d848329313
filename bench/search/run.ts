/**
 * npx tsx bench/search/run.ts [--tables a,b] [--budget S] [--refresh] [--write]
 * Issue 29's benchmark: the service's prediction model (one GBDT, and the default, which becomes
 * the time-budgeted search) against four anchors — XGBoost with early stopping, scikit-learn HGB,
 * LightGBM defaults, LightGBM tuned by Optuna — on the shared tables and this benchmark's own.
 * The anchors run once per table (anchors.py, cached in cache/; --refresh runs them again); ours
 * runs in-process every time. Writes bench/search/RESULTS.md (with --tables only when --write).
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { cpus } from "node:os";
import type { PredictionParams } from "../../src/ml/prediction/model";
import { anchors } from "./anchors";
import { loadTable, runOurs } from "./ours";
import { type Row, report } from "./report";
import { TABLES } from "./tables";

const argv = process.argv.slice(2);
const arg = (name: string) => argv.find((a, i) => argv[i - 1] === name || a.startsWith(`${name}=`))?.replace(`${name}=`, "");
const only = arg("--tables")?.split(",");
const budget = arg("--budget");
const refresh = argv.includes("--refresh");
const tables = TABLES.filter((t) => !only || only.includes(t.name));
if (only && tables.length !== only.length) throw new Error(`unknown table in --tables (known: ${TABLES.map((t) => t.name).join(", ")})`);

// One GBDT with today's defaults (the model before the search), early-stopped on the val fold.
const SINGLE: PredictionParams = { search: "off" };
// The default call passes no params; --budget gives the training its time budget (seconds).
const DEFAULT: PredictionParams | undefined = budget ? { time_budget_s: Number(budget) } : undefined;

const rows: Row[] = [];
for (const table of tables) {
  console.log(`\n== ${table.name} (${table.task}, target ${table.target}, ${table.metric})`);
  const a = anchors(table, refresh);
  const data = loadTable(table);
  const single = runOurs(table, data, SINGLE);
  console.log("  ours (single):", JSON.stringify(single));
  const ours = runOurs(table, data, DEFAULT);
  console.log("  ours (default):", JSON.stringify(ours));
  rows.push({ table, anchors: a, single, ours });
}

const sh = (cmd: string) => execFileSync("sh", ["-c", cmd]).toString().trim();
const command = `npx tsx bench/search/run.ts${argv.length ? ` ${argv.join(" ")}` : ""}`;
const versions = Object.entries(rows[0]?.anchors.versions ?? {})
  .map(([k, v]) => `${k} ${v}`)
  .join(", ");
const header = [
  "# Search benchmark (issue 29): our prediction model vs four anchors",
  "",
  `Command: \`${command}\` — ${new Date().toISOString().replace("T", " ").slice(0, 16)} UTC, at commit ${sh("git rev-parse --short HEAD")}` +
    `${sh("git status --porcelain src/ml") ? " + uncommitted engine changes" : ""}. Anchors from cache/ (their own run's date is in git).`,
  `Machine: ${cpus().length} cores (${cpus()[0]?.model ?? "?"}), shared with other work; Node ${process.version}; ${versions}. ` +
    "Everything on one thread. Protocol and tables: README.md.",
].join("\n");
const md = report(rows, header);
console.log(`\n${md}`);
if (!only || argv.includes("--write")) {
  writeFileSync("bench/search/RESULTS.md", md);
  console.log("wrote bench/search/RESULTS.md");
}
