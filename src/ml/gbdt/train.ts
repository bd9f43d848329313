/**
 * Histogram gradient boosting: the boosting loop (objectives, bagging, feature subsampling,
 * validation, early stopping, progress callback, cancellation). Deterministic for a seed.
 */

import type { ParallelExecutor } from "../parallel";
import { Rng } from "../random";
import { addTreeBinned, addTreeByLeaf } from "./add-tree";
import { applyBins, computeBins, type FeatureBins } from "./bins";
import { TreeGrower } from "./grower";
import type { GbdtModel, Objective, Tree } from "./model";
import { baseScore, gradients, loss, rowWeights } from "./objective";
import { ParallelGradients } from "./parallel-gradients";
import { growsInParallel, sharedFloat64, toShared } from "./parallel-grow";

export interface GbdtParams {
  objective: Objective;
  /** Multiclass only. */
  numClasses: number;
  learningRate: number;
  numLeaves: number;
  /** <= 0: unlimited (leaf-wise growth bounded by numLeaves). */
  maxDepth: number;
  maxRounds: number;
  /**
   * Stop when the validation loss has not improved for this many rounds; the model keeps the
   * rounds up to the best one. 0 = never stop early and keep every round.
   */
  earlyStoppingRounds: number;
  minDataInLeaf: number;
  minSumHessianInLeaf: number;
  lambdaL2: number;
  minGainToSplit: number;
  /** Row subsampling per round (1 = all rows). */
  subsample: number;
  /** Feature subsampling per tree (1 = all features). */
  featureFraction: number;
  maxBins: number;
  seed: number;
  maxCatThreshold: number;
  catSmooth: number;
  catL2: number;
  minDataPerGroup: number;
}

export const DEFAULT_GBDT_PARAMS: Omit<GbdtParams, "objective" | "numClasses"> = {
  // the prediction model's default rate grows with the rows (./schedule); 0.1 is its small-data rate
  learningRate: 0.1,
  // small trees: with the larger rates of large data they keep the score (see ./schedule)
  numLeaves: 7,
  maxDepth: -1,
  maxRounds: 500,
  earlyStoppingRounds: 30,
  minDataInLeaf: 20,
  // classification: a leaf of rows already predicted with near certainty (hessians p(1-p) ~ 0)
  // gets no reliable value; refusing it keeps the trees smaller (shuttle: 392 trees, 1839 leaves
  // instead of 413, 2101 at 1e-3, 9% faster prediction) at equal scores (bench/RESULTS.md)
  minSumHessianInLeaf: 0.1,
  lambdaL2: 1,
  minGainToSplit: 0,
  subsample: 1,
  featureFraction: 1,
  maxBins: 255,
  seed: 0,
  maxCatThreshold: 32,
  catSmooth: 10,
  catL2: 10,
  minDataPerGroup: 20,
};

export interface IterationInfo {
  /** 1-based number of boosting rounds done. */
  iteration: number;
  trainLoss: number;
  valLoss: number | null;
}

export interface TrainGbdtInput {
  /** Row-major float32 feature matrix [numRows x numFeatures]. */
  data: Float32Array;
  numRows: number;
  numFeatures: number;
  /** Per feature: categorical (integer codes, native splits) or numeric. */
  categorical: ArrayLike<boolean | number>;
  featureNames?: string[];
  /** Per row: target value (regression) or class index 0..K-1 (classification). */
  label: Float64Array;
  /**
   * Optional per-row weights (indexed like `label`, finite and >= 0): gradients and hessians are
   * scaled by them, the base score and the (validation, early-stopping) losses are weighted
   * means. `minDataInLeaf` still counts rows; `minSumHessianInLeaf` sees the weighted hessians.
   * Absent: unweighted, bit-identical to a trainer without weights.
   */
  weight?: Float64Array;
  trainRows?: Int32Array;
  valRows?: Int32Array;
  /** Precomputed bins (e.g. from the shared representation); computed on train rows otherwise. */
  bins?: FeatureBins[];
  classes?: string[];
  params: Partial<GbdtParams> & { objective: Objective };
  /** Called after every round; returning false stops training cleanly. */
  onIteration?: (info: IterationInfo) => boolean | undefined;
  /** Checked before the first round and after every round; true stops training cleanly ("cancelled"). */
  shouldStop?: () => boolean;
  /**
   * Wall-clock cap on boosting, in milliseconds of `now`'s clock, counted from just before the
   * first round (time the caller spends between rounds counts too). After each round, boosting
   * stops with stopReason "time_budget" when the next round is not expected to end within the
   * budget (expected: as long as the round just done); the model keeps the rounds up to the best
   * one, as with early stopping. At least one round is always done. Absent: no cap.
   */
  timeBudgetMs?: number;
  /** The clock of `timeBudgetMs`, in milliseconds (default `performance.now`); tests inject one. */
  now?: () => number;
  /**
   * Threads to grow the trees on (the trainer's, src/container/gbdt-threads.ts); absent: this
   * thread only. The model is bit-identical either way; small tables never use them.
   */
  parallel?: ParallelExecutor;
}

/**
 * Why boosting ended: `max_rounds` (every round was done), `early_stopping` (the validation loss
 * stopped improving), `time_budget` (the wall-clock budget ran out), `cancelled`.
 */
export type StopReason = "max_rounds" | "early_stopping" | "time_budget" | "cancelled";

export interface TrainGbdtResult {
  model: GbdtModel;
  bins: FeatureBins[];
  history: IterationInfo[];
  stopReason: StopReason;
  /**
   * Rounds kept in the model: up to the best validation round with early stopping, else all.
   * model.bestIteration = rounds - 1 (0-based index of the last kept round; 0 when none).
   */
  rounds: number;
  /**
   * Raw scores of the kept rounds, so callers can score the fit without predicting again:
   * training rows (in `trainRows` order; only when every grown round was kept, else null) and
   * validation rows (in `valRows` order; null without validation), each rows × outputs.
   */
  trainRaw: Float64Array | null;
  valRaw: Float64Array | null;
}

/**
 * Train synchronously: drives {@link trainGbdtSteps} to the end. `onIteration` and `shouldStop`
 * behave as documented on {@link TrainGbdtInput}.
 */
export function trainGbdt(input: TrainGbdtInput): TrainGbdtResult {
  const steps = trainGbdtSteps(input);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * The boosting loop as a generator: yields each round's info once the round is done, and returns
 * the result when training ends. An asynchronous caller awaits whatever it needs between rounds
 * (progress report, cancel check) and calls `next()` again. `shouldStop` and `onIteration` are
 * consulted right after each yield (and `shouldStop` once before the first round), so a flag the
 * caller sets while the generator is paused stops training after that round with
 * stopReason "cancelled" and a usable model. Abandoning the generator (`return()`) discards it.
 * @internal exported for its unit tests (test/ml/gbdt-steps.test.ts, gbdt-time-budget.test.ts)
 */
export function* trainGbdtSteps(input: TrainGbdtInput): Generator<IterationInfo, TrainGbdtResult, void> {
  const p = { ...DEFAULT_GBDT_PARAMS, ...input.params };
  const F = input.numFeatures;
  const all = input.trainRows ?? Int32Array.from({ length: input.numRows }, (_, i) => i);
  const bins = input.bins ?? computeBins(input.data, input.numRows, F, input.categorical, { rows: all, maxBins: p.maxBins, seed: p.seed });
  if (bins.length !== F) throw new Error(`bins for ${bins.length} features, data has ${F}`);
  const trainBins = applyBins(input.data, input.numRows, F, bins, all);
  const valRows = input.valRows && input.valRows.length > 0 ? input.valRows : undefined;
  const valBins = valRows ? applyBins(input.data, input.numRows, F, bins, valRows) : null;
  const { data: _data, numRows: _numRows, categorical: _categorical, ...rest } = input;
  return yield* trainGbdtBinnedSteps({ ...rest, bins, trainRows: all, valRows, trainBins, valBins });
}

/**
 * What trainGbdtSteps needs once the rows are binned: the bins and the row-major Uint8 bin
 * matrices of the training and validation rows (in `trainRows` / `valRows` order) instead of the
 * float matrix, so a caller can bin a large table without ever holding its float matrix.
 */
export interface BinnedGbdtInput extends Omit<TrainGbdtInput, "data" | "numRows" | "categorical" | "bins" | "trainRows"> {
  bins: FeatureBins[];
  trainRows: Int32Array;
  /** [trainRows.length x numFeatures]. */
  trainBins: Uint8Array;
  /** [valRows.length x numFeatures], null without validation rows. */
  valBins: Uint8Array | null;
}

/** The boosting loop over binned rows (see trainGbdtSteps, which bins and calls it). */
export function* trainGbdtBinnedSteps(input: BinnedGbdtInput): Generator<IterationInfo, TrainGbdtResult, void> {
  const p: GbdtParams = { ...DEFAULT_GBDT_PARAMS, numClasses: 2, ...input.params } as GbdtParams;
  const obj = p.objective;
  const K = obj === "multiclass" ? p.numClasses : 1;
  if (obj === "multiclass" && !(K >= 2)) throw new Error("multiclass needs numClasses >= 2");
  const F = input.numFeatures;
  const { bins } = input;
  const all = input.trainRows;
  const n = all.length;
  const valRows = input.valRows && input.valRows.length > 0 ? input.valRows : null;
  const valBins = valRows ? input.valBins : null;
  if (bins.length !== F || input.trainBins.length !== n * F || (valRows && valBins?.length !== valRows.length * F)) {
    throw new Error(`binned input does not match ${F} features, ${n} training and ${valRows?.length ?? 0} validation rows`);
  }
  const nv = valRows ? valRows.length : 0;
  // the threads read the bins and gradients from memory shared with them
  const parallel = growsInParallel(input.parallel, n, F) ? input.parallel : undefined;
  const trainBins = parallel ? toShared(input.trainBins) : input.trainBins;
  const float64 = (length: number) => (parallel ? sharedFloat64(length) : new Float64Array(length));
  const y = Float64Array.from(all, (r) => input.label[r]);
  const yv = valRows ? Float64Array.from(valRows, (r) => input.label[r]) : new Float64Array(0);
  const w = input.weight ? rowWeights(input.weight, all, "training") : undefined;
  const wv = input.weight && valRows ? rowWeights(input.weight, valRows, "validation") : undefined;

  const base = baseScore(obj, y, K, w);
  const scores = float64(n * K);
  const vscores = new Float64Array(nv * K);
  // Validation scores at the best round so far: the model is cut back to that round.
  const bestVscores = new Float64Array(nv * K);
  for (let i = 0; i < n * K; i++) scores[i] = base[i % K];
  for (let i = 0; i < nv * K; i++) vscores[i] = base[i % K];
  const grad = float64(n * K);
  // regression hessians are constant: 1, or the row's weight
  const hess = float64(n * K);
  if (w && obj === "regression") hess.set(w);
  else hess.fill(1);
  const prob = new Float64Array(K);
  const unitHess = obj === "regression" && !w;

  const grower = new TreeGrower(trainBins, n, bins, p, parallel && { executor: parallel, grad, hess });
  // with one output per row the threads compute the gradients too (./parallel-gradients)
  const shared = parallel && K === 1 ? { objective: obj, n, scores, label: toShared(y), weight: w ? toShared(w) : null, grad, hess } : null;
  const threadGradients = parallel && shared ? new ParallelGradients(parallel, shared) : null;
  const computeGradients = () => (threadGradients ? threadGradients.run() : gradients(obj, scores, y, K, grad, hess, prob, w));
  try {
    return yield* boost();
  } finally {
    grower.close();
    threadGradients?.close();
  }

  function* boost(): Generator<IterationInfo, TrainGbdtResult, void> {
    const rng = new Rng(p.seed);
    const perm = Int32Array.from({ length: F }, (_, i) => i);
    const sel = new Int32Array(F);
    const nSel = p.featureFraction < 1 ? Math.max(1, Math.round(p.featureFraction * F)) : F;
    const bagSize = p.subsample < 1 ? Math.max(1, Math.round(p.subsample * n)) : n;
    const bag = bagSize < n ? new Int32Array(bagSize) : null;

    const trees: Tree[] = [];
    const history: IterationInfo[] = [];
    let bestRound = -1;
    let bestLoss = Infinity;
    let stopReason: StopReason = "max_rounds";
    computeGradients();
    const lossSample = trainLossSample(n, p.seed);
    const budget = input.timeBudgetMs;
    if (budget !== undefined && !(budget > 0)) throw new Error(`timeBudgetMs must be positive (got ${budget})`);
    const now = input.now ?? (() => performance.now());
    const tStart = budget !== undefined ? now() : 0;
    let tRoundEnd = tStart;
    if (input.shouldStop?.()) stopReason = "cancelled";
    for (let round = 0; round < p.maxRounds && stopReason === "max_rounds"; round++) {
      if (bag) sampleSorted(rng, n, bag);
      if (nSel < F) {
        for (let i = 0; i < nSel; i++) {
          const j = i + rng.int(F - i);
          const t = perm[i];
          perm[i] = perm[j];
          perm[j] = t;
        }
        sel.set(perm.subarray(0, nSel));
        sel.subarray(0, nSel).sort();
      } else for (let f = 0; f < F; f++) sel[f] = f;
      for (let k = 0; k < K; k++) {
        const g = K > 1 ? grad.subarray(k * n, (k + 1) * n) : grad;
        const h = K > 1 ? hess.subarray(k * n, (k + 1) * n) : hess;
        const tree = grower.grow(g, h, unitHess, bag, sel, nSel);
        trees.push(tree);
        if (bag) addTreeBinned(tree, grower, trainBins, F, n, scores, K, k);
        else addTreeByLeaf(tree, grower, scores, K, k);
        if (valBins) addTreeBinned(tree, grower, valBins, F, nv, vscores, K, k);
      }
      const valLoss = valBins ? loss(obj, vscores, yv, K, undefined, wv) : null;
      computeGradients();
      const trainLoss = loss(obj, scores, y, K, lossSample, w);
      const info: IterationInfo = { iteration: round + 1, trainLoss, valLoss };
      history.push(info);
      if (valLoss !== null && p.earlyStoppingRounds > 0) {
        if (bestRound < 0 || valLoss < bestLoss - 1e-12 * Math.abs(bestLoss)) {
          bestLoss = valLoss;
          bestRound = round;
          bestVscores.set(vscores);
        } else if (p.earlyStoppingRounds > 0 && round - bestRound >= p.earlyStoppingRounds) {
          stopReason = "early_stopping";
        }
      } else {
        bestRound = round;
        bestVscores.set(vscores);
      }
      yield info;
      if (input.onIteration?.(info) === false || input.shouldStop?.()) stopReason = "cancelled";
      if (budget !== undefined && stopReason === "max_rounds" && round + 1 < p.maxRounds) {
        const t = now();
        // the next round would end past the budget (expected to take as long as this one)
        if (t - tStart + (t - tRoundEnd) > budget) stopReason = "time_budget";
        tRoundEnd = t;
      }
    }
    const rounds = bestRound + 1;
    const model: GbdtModel = {
      format: "gbdt-v1",
      objective: obj,
      numOutputs: K,
      baseScore: base,
      trees: trees.slice(0, rounds * K),
      numFeatures: F,
      featureNames: input.featureNames ?? Array.from({ length: F }, (_, i) => `f${i}`),
      bestIteration: Math.max(0, bestRound),
    };
    if (input.classes) model.classes = input.classes;
    const allKept = rounds === history.length;
    return { model, bins, history, stopReason, rounds, trainRaw: allKept ? scores : null, valRaw: valRows ? bestVscores : null };
  }
}

/**
 * The training loss reported each round is measured on a fixed sample of at most this many rows:
 * exact for smaller data, within about 1% above it, and it keeps a log per row per round off the
 * hot path of large trainings.
 * @internal exported for its unit test (test/ml/gbdt-scores.test.ts)
 */
export const TRAIN_LOSS_SAMPLE_ROWS = 16_384;

function trainLossSample(n: number, seed: number): Int32Array | undefined {
  if (n <= TRAIN_LOSS_SAMPLE_ROWS) return undefined;
  const sample = new Int32Array(TRAIN_LOSS_SAMPLE_ROWS);
  sampleSorted(new Rng(seed ^ 0x5eed), n, sample);
  return sample;
}

/** Exactly `bag.length` rows out of n, in increasing order (selection sampling). */
function sampleSorted(rng: Rng, n: number, bag: Int32Array): void {
  let need = bag.length;
  let m = 0;
  for (let i = 0; i < n && need > 0; i++) {
    if (rng.next() * (n - i) < need) {
      bag[m++] = i;
      need--;
    }
  }
}
