/**
 * npx tsx bench/unsupervised/embedding.ts [diamonds,cps1988,fertility,shuttle,lending_club]
 * Does the embedding keep neighbourhoods? On each shared dataset, without its target column: the
 * shared representation (as the service builds it), the embedding of every row, and the
 * standardized features of the same rows. scikit-learn's 15-NN (brute force) then predicts the
 * held-out target from the train fold in both spaces (accuracy or R²), in the same run, on the
 * same matrices. Target: embedding within 0.03 of the standardized features.
 * Train rows are capped at 30,000 and test rows at 3,000 (seeded samples), for time.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyFeaturizer } from "../../src/ml/featurize";
import type { Frame } from "../../src/ml/frame";
import { extractLabel } from "../../src/ml/label";
import { Rng } from "../../src/ml/random";
import { buildRepresentation } from "../../src/ml/representation/representation";
import { embed, standardize, standardSpace } from "../../src/ml/space/space";
import { loadBenchDataset } from "../../test/ml/helpers/bench-data";

const names = (process.argv[2] ?? "diamonds,cps1988,fertility,shuttle,lending_club").split(",");
const dir = mkdtempSync(join(tmpdir(), "embedding-bench-"));
const K = 15;

function sample(rows: Int32Array, max: number, seed: number): Int32Array {
  if (rows.length <= max) return rows;
  const copy = Int32Array.from(rows);
  new Rng(seed).shuffle(copy);
  return copy.subarray(0, max).sort();
}

function writeF64(path: string, a: Float64Array) {
  writeFileSync(path, Buffer.from(a.buffer, a.byteOffset, a.byteLength));
}

console.log(
  `| dataset | metric | rows (train / test) | standardized dims | ${K}-NN on standardized features | ${K}-NN on embedding (16) | embedding − standardized | within 0.03 |`,
);
console.log("|---|---|---|---:|---:|---:|---:|---|");
for (const name of names) {
  const { frame, target, task, folds } = loadBenchDataset(name);
  const features: Frame = { rowCount: frame.rowCount, columns: frame.columns.filter((c) => c.name !== target) };
  const t0 = performance.now();
  const rep = buildRepresentation(features);
  const repS = (performance.now() - t0) / 1000;
  const space = standardSpace(rep);
  const m = applyFeaturizer(space.featurizer, features);
  const std = standardize(space, m);
  const emb = embed(rep.encoder!, applyFeaturizer(rep.featurizer, features));
  const label = extractLabel(frame.columns.find((c) => c.name === target)!, frame.rowCount, task);
  const train = sample(Int32Array.from([...folds.train, ...folds.val]), 30_000, 1);
  const test = sample(folds.test, 3_000, 2);
  writeF64(join(dir, `${name}.std`), std);
  writeF64(join(dir, `${name}.emb`), emb);
  writeF64(join(dir, `${name}.y`), Float64Array.from(label.y));
  writeFileSync(
    join(dir, `${name}.json`),
    JSON.stringify({ n: frame.rowCount, d_std: space.D, d_emb: rep.encoder!.embedding, task, k: K, train: [...train], test: [...test] }),
  );
  const out = execFileSync("/usr/bin/python3", [join(import.meta.dirname, "embedding_reference.py"), join(dir, name)], {
    env: { ...process.env, OMP_NUM_THREADS: "1", OPENBLAS_NUM_THREADS: "1", MKL_NUM_THREADS: "1" },
  }).toString();
  const r = JSON.parse(out) as { std: number; emb: number };
  const diff = r.emb - r.std;
  console.log(
    `| ${name} | ${task === "regression" ? "R²" : "accuracy"} | ${train.length} / ${test.length} | ${space.D} | ${r.std.toFixed(3)} | ${r.emb.toFixed(3)} | ${diff >= 0 ? "+" : ""}${diff.toFixed(3)} | ${diff >= -0.03 ? "yes" : "no"} |`,
  );
  console.error(`${name}: representation built in ${repS.toFixed(1)} s`);
}
