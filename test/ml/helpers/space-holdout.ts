/**
 * Scores both spaces of a search model on rows its space choice never saw: a table's test-fold
 * rows are the queries, its train rows the other neighbours, every column held out in turn (the
 * leave-column-out neighbour score of src/ml/space/neighbour-score). Used by the space-choice test
 * and its benchmark (bench/unsupervised/search-space.ts).
 */
import { applyFeaturizer } from "../../../src/ml/featurize";
import { type Frame, pickRows } from "../../../src/ml/frame";
import { Rng } from "../../../src/ml/random";
import type { Representation } from "../../../src/ml/representation/representation";
import { embeddedWithout, standardizedWithout } from "../../../src/ml/space/hidden-columns";
import { neighbourScore, scorePlan } from "../../../src/ml/space/neighbour-score";
import { standardSpace } from "../../../src/ml/space/space";

/** A seeded sample of at most `max` of `rows`, in random order. */
export function sampleOf(rows: Int32Array, max: number, seed: number): Int32Array {
  const copy = Int32Array.from(rows);
  new Rng(seed).shuffle(copy);
  return copy.slice(0, Math.min(max, copy.length));
}

/**
 * The neighbour score of each space (rep's standardized features and its encoder's embedding) with
 * `queries` rows of `frame` as queries and `others` as the rest of the pool; k = 10.
 */
export function heldOutScores(frame: Frame, rep: Representation, queries: Int32Array, others: Int32Array): { features: number; embedding: number } {
  const space = standardSpace(rep);
  const pool = applyFeaturizer(space.featurizer, pickRows(frame, Int32Array.from([...queries, ...others])));
  const sources = [...new Set(space.featurizer.features.map((f) => f.source))];
  const plan = scorePlan(space.featurizer, space.layout, pool, sources, queries.length, 10);
  return {
    features: neighbourScore(plan, standardizedWithout(space, pool)).score,
    embedding: neighbourScore(plan, embeddedWithout(rep.encoder!, pool)).score,
  };
}
