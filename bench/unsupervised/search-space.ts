/**
 * npx tsx bench/unsupervised/search-space.ts [diamonds,cps1988,fertility,shuttle,lending_club]
 * Which space should a `search` model default to? On each shared table, every column kept (a
 * search model's data has no target): the representation and `space: "auto"`'s choice are made on
 * the train + val folds, as training would (src/ml/space/choose-space); then each space is scored
 * on rows the choice never saw — test-fold queries, every column held out in turn, neighbours
 * among them and a sample of the train rows — with the same leave-column-out neighbour score
 * (test/ml/helpers/space-holdout). "auto − features" is what the default gains or loses against
 * plain standardized features there.
 */
import { applyFeaturizer } from "../../src/ml/featurize";
import { pickRows } from "../../src/ml/frame";
import { buildRepresentation } from "../../src/ml/representation/representation";
import { chooseSpace } from "../../src/ml/space/choose-space";
import { standardSpace } from "../../src/ml/space/space";
import { loadBenchDataset } from "../../test/ml/helpers/bench-data";
import { heldOutScores, sampleOf } from "../../test/ml/helpers/space-holdout";

const names = (process.argv[2] ?? "diamonds,cps1988,fertility,shuttle,lending_club").split(",");
/** Test-fold queries and train rows among which they find neighbours (seeded samples), for time. */
const QUERIES = 1000;
const POOL_TRAIN = 9000;

const f3 = (x: number) => x.toFixed(3);
console.log(
  "| table | rows (train + val) | columns | standardized dims | choice sample: embedding / features (± s.e.) | auto's choice (seeds 1, 2) | choice time (s) | held-out: features | embedding | auto | auto − features |",
);
console.log("|---|---:|---:|---:|---|---|---:|---:|---:|---:|---:|");
for (const name of names) {
  const { frame, folds } = loadBenchDataset(name);
  const fit = pickRows(frame, Int32Array.from([...folds.train, ...folds.val]).sort());
  const rep = buildRepresentation(fit);
  const space = standardSpace(rep);
  const t0 = performance.now();
  const choice = chooseSpace(space, rep.encoder!, applyFeaturizer(space.featurizer, fit), 0);
  const choiceS = (performance.now() - t0) / 1000;
  // the same choice on two other samples (seeds): does a near-tie flip?
  const others = [1, 2].map((seed) => chooseSpace(space, rep.encoder!, applyFeaturizer(space.featurizer, fit), seed).space);
  const held = heldOutScores(frame, rep, sampleOf(folds.test, QUERIES, 1), sampleOf(folds.train, POOL_TRAIN, 2));
  const auto = held[choice.space];
  const d = auto - held.features;
  const columns = new Set(space.featurizer.features.map((f) => f.source)).size;
  console.log(
    `| ${name} | ${fit.rowCount} | ${columns} | ${space.D} | ${f3(choice.scores.embedding)} / ${f3(choice.scores.features)} (± ${f3(choice.standardError)}) | ${choice.space} (${others.join(", ")}) | ${choiceS.toFixed(2)} | ${f3(held.features)} | ${f3(held.embedding)} | ${f3(auto)} | ${d >= 0 ? "+" : ""}${f3(d)} |`,
  );
}
