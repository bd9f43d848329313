/**
 * How a model search scores a trial: k-fold cross-validation on tables small enough that one
 * validation split would be a noisy judge (and that are quick to fit k times), a single holdout on
 * larger ones. Folds are stratified by class for classification.
 */
import { Rng } from "../../random";

/** Up to this many labelled rows a trial is scored by cross-validation, above it by the holdout. */
const CROSS_VALIDATION_MAX_ROWS = 20_000;
/** Folds of the cross-validation. */
const FOLDS = 5;

export interface Fold {
  /** Positions of the fitting rows. */
  fit: Int32Array;
  /** Positions of the scoring rows (early stopping and the trial's score). */
  score: Int32Array;
}

export interface FoldPlan {
  method: "cross_validation" | "holdout";
  folds: Fold[];
}

/**
 * The plan for the prepared rows: cross-validation over the training and validation rows together
 * (positions 0..n-1 in that order; `cls[i]` the class of position i, null for regression) when
 * they are few enough and the caller gave no explicit split, else the holdout as prepared (its
 * positions are then the frame's rows themselves: no copy of a large table's row lists).
 */
export function foldPlan(train: Int32Array, val: Int32Array, cls: ArrayLike<number> | null, seed: number, mayCrossValidate: boolean): FoldPlan {
  const n = train.length + val.length;
  if (!mayCrossValidate || n > CROSS_VALIDATION_MAX_ROWS || n < FOLDS * 2) return { method: "holdout", folds: [{ fit: train, score: val }] };
  const foldOf = stratifiedFolds(n, cls, seed);
  const folds: Fold[] = [];
  for (let f = 0; f < FOLDS; f++) {
    const fit: number[] = [];
    const score: number[] = [];
    for (let i = 0; i < n; i++) (foldOf[i] === f ? score : fit).push(i);
    folds.push({ fit: Int32Array.from(fit), score: Int32Array.from(score) });
  }
  return { method: "cross_validation", folds };
}

/** Fold of each position: within each class the positions are shuffled and dealt out in turn. */
function stratifiedFolds(n: number, cls: ArrayLike<number> | null, seed: number): Uint8Array {
  const rng = new Rng(seed ^ 0xf01d);
  const groups = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const k = cls ? cls[i] : 0;
    let g = groups.get(k);
    if (!g) groups.set(k, (g = []));
    g.push(i);
  }
  const foldOf = new Uint8Array(n);
  let next = 0;
  for (const k of [...groups.keys()].sort((a, b) => a - b)) {
    const g = Int32Array.from(groups.get(k)!);
    rng.shuffle(g);
    // continue the deal where the last class ended, so small classes do not all start at fold 0
    for (const i of g) foldOf[i] = next++ % FOLDS;
  }
  return foldOf;
}
