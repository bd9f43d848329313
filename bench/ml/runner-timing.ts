/**
 * The training runner in-process, as the trainer runs a job (src/container/run-training.ts with an
 * in-memory TrainingIO), on two real tables: a prediction model that builds the shared
 * representation, then an anomaly and a clustering model that reuse it. Prints one JSON line per
 * model: wall ms, the runner's own split, and a digest of its metrics and summary, so that two
 * trees (a refactor and the commit before it) can be compared for speed AND for identical models.
 *
 *   node_modules/.bin/node --import tsx bench/ml/runner-timing.ts [types...]   (default: prediction anomaly clustering)
 *
 * bench/REFACTOR-AB-RESULTS.md has the A/B it was written for.
 */
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { runTraining } from "../../src/container/run-training";
import type { TrainingIO } from "../../src/container/training-io";
import { readCsv } from "../../src/ingest/csv";

const TABLES: [name: string, label: string][] = [
  ["fertility", "morekids"],
  ["diamonds", "price"],
];
const types = process.argv.length > 2 ? process.argv.slice(2) : ["prediction", "anomaly", "clustering"];
const labelled = new Set(["prediction", "causal"]);

for (const [name, label] of TABLES) {
  const { frame } = await readCsv(new Uint8Array(readFileSync(new URL(`../../../shared/bench-data/${name}.csv`, import.meta.url))));
  let representation: string | null = null;
  for (const type of types) {
    const io: TrainingIO = {
      loadFrame: async () => frame,
      loadRepresentation: async () => representation,
      saveRepresentation: async (json) => void (representation = json),
      saveArtifact: async () => {},
      report: async () => {},
    };
    const params = type === "prediction" ? { max_rounds: 100, early_stopping_rounds: 0 } : {};
    const task = {
      model_name: "m",
      version_number: 1,
      model_type: type,
      label_column: labelled.has(type) ? label : null,
      input_columns: null,
      params,
    };
    const t0 = performance.now();
    const out = await runTraining(task, io);
    const ms = Math.round(performance.now() - t0);
    const digest = `${JSON.stringify(out.metrics)} summary ${JSON.stringify(out.summary).length} bytes`;
    console.log(JSON.stringify({ table: name, type, ms, seconds: out.seconds, representation: out.representation, digest }));
  }
}
