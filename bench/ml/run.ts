/**
 * npm run bench:ml [-- --only diamonds,shuttle] [--quick] [--no-ref] [--no-write]
 * Our GBDT vs XGBoost and scikit-learn HGB on the fixed folds of /work/shared/bench-data;
 * prints the tables and writes bench/RESULTS.md (not with --only, --quick or --no-write).
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { loadBenchDataset } from "../../test/ml/helpers/bench-data";
import { DATASETS, datasetFiles } from "./datasets";
import { runOurs } from "./engine";
import { ensurePython, runReference } from "./python";
import { type Row, report } from "./report";

const argv = process.argv.slice(2);
const flag = (name: string) => argv.includes(name);
const onlyArg = argv.find((a, i) => argv[i - 1] === "--only" || a.startsWith("--only="))?.replace("--only=", "");
const quick = flag("--quick");
const only = onlyArg ? onlyArg.split(",") : undefined;
const specs = DATASETS.filter((d) => !only || only.includes(d.name));
if (only && specs.length !== only.length) throw new Error(`unknown dataset in --only (known: ${DATASETS.map((d) => d.name).join(", ")})`);

const repeats = quick ? 1 : 3;
const opt = { repeats, oneRowCalls: quick ? 200 : 2000, fitBudgetS: quick ? 0 : 120 };
const withRef = !flag("--no-ref") && ensurePython();

const sh = (cmd: string) => {
  try {
    return execFileSync("sh", ["-c", cmd]).toString().trim();
  } catch {
    return "?";
  }
};
const commit = sh("git rev-parse --short HEAD") + (sh("git status --porcelain src/ml test/ml/helpers") ? " + uncommitted engine changes" : "");
const rows: Row[] = [];
let versions: Record<string, string> = {};
for (const spec of specs) {
  console.log(`\n== ${spec.name} (${spec.task}, target ${spec.target})`);
  const { csv, folds: foldsPath } = datasetFiles(spec.name);
  const row: Row = { spec };
  try {
    const { frame, folds } = loadBenchDataset(spec.name, csv);
    row.ours = await runOurs(spec, frame, folds, opt);
    console.log("  ours:", JSON.stringify(row.ours));
  } catch (e) {
    row.oursError = `engine failed: ${(e as Error).message.split("\n")[0]}`;
    console.warn(" ", row.oursError);
  }
  if (withRef) {
    row.ref = runReference(spec, csv, foldsPath, repeats);
    versions = row.ref.versions;
  }
  rows.push(row);
}

const command = `npm run bench:ml${argv.length ? ` -- ${argv.join(" ")}` : ""}`;
const header = [
  "# ML benchmark: our GBDT vs XGBoost and scikit-learn HistGradientBoosting",
  "",
  `Command: \`${command}\` — ${new Date().toISOString().replace("T", " ").slice(0, 16)} UTC, engine at commit ${commit}.`,
  `Machine: ${sh("nproc")} cores (${cpus()[0]?.model ?? "?"}), shared with other work, so timings are noisy; ` +
    `Node ${process.version}; ${
      Object.entries(versions)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ") || "no Python reference"
    }. ` +
    "Everything single-threaded (our engine is; XGBoost nthread=1, OMP_NUM_THREADS=1; onnxruntime-web numThreads=1).",
  `Passes: ${repeats === 1 ? "1 (--quick)" : "fastest of 3"}; our training stops repeating after ${opt.fitBudgetS} s spent.`,
  "Categoricals: XGBoost gets pandas `category` dtype (levels sorted) with `enable_categorical=True`; HGB the same codes " +
    "via `categorical_features`; ours its own featurizer (native categorical splits). These settings reproduce the README's reference scores.",
  "",
  "Targets: score ≥ best(XGBoost, HGB) − 0.005 on every dataset and above both on average; training ≤ 1.5× XGBoost on " +
    "fertility and synth_500k; one-row ORT prediction < 0.1 ms warm.",
].join("\n");
const md = report(rows, header);
console.log(`\n${md}`);
if (!only && !quick && !flag("--no-write")) {
  writeFileSync("bench/RESULTS.md", md);
  console.log("wrote bench/RESULTS.md");
}
