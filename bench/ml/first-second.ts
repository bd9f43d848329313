/**
 * npx tsx bench/ml/first-second.ts [fertility,diamonds,lending_club] [--repeats 3]
 * First vs second prediction model on the same dataset version, at engine level, on the whole
 * table with the default validation split: the first builds the shared representation (profile,
 * featurizer, bins; since 2026-11-29 not the SSL encoder, which only the models that read it
 * train), the second reuses it. Also the representation with and without its encoder: what the
 * first prediction model no longer waits for. Fastest of `repeats` passes each.
 */

import { trainPredictionModel } from "../../src/ml/prediction/train";
import { buildRepresentation } from "../../src/ml/representation/representation";
import { loadBenchDataset } from "../../test/ml/helpers/bench-data";
import { bestOf } from "./measure";

const argv = process.argv.slice(2);
const names = (argv.find((a) => !a.startsWith("--") && argv[argv.indexOf(a) - 1] !== "--repeats") ?? "fertility,diamonds,lending_club").split(",");
const repeats = Number(argv[argv.indexOf("--repeats") + 1]) || 3;

console.log(
  "| dataset | rows × columns | ssl steps | representation with encoder s | without s | first model s | second model s | first / second | encoder val loss (baseline) | representation JSON |",
);
console.log("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const name of names) {
  const { frame, target, task } = loadBenchDataset(name);
  const opts = { labelColumn: target, task };
  const rep = await bestOf(repeats, () => buildRepresentation(frame));
  const representation = rep.value;
  const bare = await bestOf(repeats, () => buildRepresentation(frame, { encoder: false }));
  const second = await bestOf(repeats, () => trainPredictionModel(frame, { ...opts, representation }));
  const first = await bestOf(repeats, () => trainPredictionModel(frame, opts));
  const enc = representation.encoder!;
  const kb = (JSON.stringify(representation).length / 1024).toFixed(0);
  console.log(
    `| ${name} | ${frame.rowCount} × ${frame.columns.length} | ${enc.training.steps} | ${rep.seconds.toFixed(2)} | ${bare.seconds.toFixed(2)} | ${first.seconds.toFixed(2)} | ` +
      `${second.seconds.toFixed(2)} | ${(first.seconds / second.seconds).toFixed(1)}× | ${enc.training.valLoss?.toFixed(3)} (${enc.training.valBaselineLoss?.toFixed(3)}) | ${kb} KB |`,
  );
}
