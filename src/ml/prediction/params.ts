/**
 * A prediction model's parameters: what a request may set, the defaults, the checks (read by
 * ./model; re-exported there for the service).
 */
import { MlInputError } from "../errors";
import { defaultSchedule } from "../gbdt/schedule";
import { DEFAULT_GBDT_PARAMS, type GbdtParams } from "../gbdt/train";
import type { Task } from "../label";

export interface PredictionParams {
  /** Default: by training rows, see defaultSchedule (0.1 up to 50k rows, 0.5 from 150k, 0.3 from 1M). */
  learning_rate?: number;
  /** Default: by training rows, see defaultSchedule (7; 15 from 1M rows). */
  num_leaves?: number;
  max_depth?: number;
  max_rounds?: number;
  /** Default: by training rows, see defaultSchedule (30; 10 from 1M rows). */
  early_stopping_rounds?: number;
  min_data_in_leaf?: number;
  l2?: number;
  subsample?: number;
  feature_fraction?: number;
  seed?: number;
  /** Fraction of labelled rows held out for validation when no explicit split is given. */
  validation_fraction?: number;
  /**
   * Wall-clock seconds boosting may take (from its first round; building the shared
   * representation is not counted): boosting then stops with stop reason "time_budget" and the
   * model keeps its best round so far. At least one round is always done.
   */
  time_budget_s?: number;
  /**
   * "auto" (the default): a model search within the time budget (./search-model) on tables of up
   * to SEARCH_AUTO_MAX_ROWS labelled rows, one model above; "on": a search whatever the rows;
   * "off": one model with these parameters.
   */
  search?: "auto" | "on" | "off";
  /** Trials the search may run at most. */
  max_trials?: number;
}

/** Trials a search runs at most by default (a 40-trial Optuna search is the practitioner's habit), and at most on request. */
const DEFAULT_MAX_TRIALS = 40;
export const MAX_TRIALS = 1000;

/** Default boosting time budget: a training job's boosting ends within about five minutes. */
const DEFAULT_TIME_BUDGET_S = 300;
/** Largest time budget a request may ask for (six hours). */
export const MAX_TIME_BUDGET_S = 6 * 60 * 60;

export const DEFAULT_PREDICTION_PARAMS: Required<PredictionParams> = {
  // the schedule of small data; unset, the rate, leaves and patience depend on the training rows (defaultSchedule)
  learning_rate: DEFAULT_GBDT_PARAMS.learningRate,
  num_leaves: DEFAULT_GBDT_PARAMS.numLeaves,
  max_depth: DEFAULT_GBDT_PARAMS.maxDepth,
  max_rounds: DEFAULT_GBDT_PARAMS.maxRounds,
  early_stopping_rounds: DEFAULT_GBDT_PARAMS.earlyStoppingRounds,
  min_data_in_leaf: DEFAULT_GBDT_PARAMS.minDataInLeaf,
  l2: DEFAULT_GBDT_PARAMS.lambdaL2,
  subsample: DEFAULT_GBDT_PARAMS.subsample,
  feature_fraction: DEFAULT_GBDT_PARAMS.featureFraction,
  seed: 0,
  validation_fraction: 0.1,
  time_budget_s: DEFAULT_TIME_BUDGET_S,
  search: "auto",
  max_trials: DEFAULT_MAX_TRIALS,
};

/** The model's parameters: the request's over the defaults, checked. */
export function predictionParams(params: PredictionParams | undefined): Required<PredictionParams> {
  const p = { ...DEFAULT_PREDICTION_PARAMS, ...stripUndefined(params ?? {}) };
  validateParams(p);
  return p;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function validateParams(p: Required<PredictionParams>): void {
  if (!["auto", "on", "off"].includes(p.search)) throw new MlInputError(`invalid parameter search: ${p.search}`);
  const check = (name: string, v: number, ok: boolean) => {
    if (typeof v !== "number" || !Number.isFinite(v) || !ok) throw new MlInputError(`invalid parameter ${name}: ${v}`);
  };
  check("learning_rate", p.learning_rate, p.learning_rate > 0 && p.learning_rate <= 1);
  check("num_leaves", p.num_leaves, Number.isInteger(p.num_leaves) && p.num_leaves >= 2 && p.num_leaves <= 4096);
  check("max_depth", p.max_depth, Number.isInteger(p.max_depth));
  check("max_rounds", p.max_rounds, Number.isInteger(p.max_rounds) && p.max_rounds >= 1 && p.max_rounds <= 100_000);
  check("early_stopping_rounds", p.early_stopping_rounds, Number.isInteger(p.early_stopping_rounds) && p.early_stopping_rounds >= 0);
  check("min_data_in_leaf", p.min_data_in_leaf, Number.isInteger(p.min_data_in_leaf) && p.min_data_in_leaf >= 1);
  check("l2", p.l2, p.l2 >= 0);
  check("subsample", p.subsample, p.subsample > 0 && p.subsample <= 1);
  check("feature_fraction", p.feature_fraction, p.feature_fraction > 0 && p.feature_fraction <= 1);
  check("seed", p.seed, Number.isInteger(p.seed));
  check("validation_fraction", p.validation_fraction, p.validation_fraction >= 0 && p.validation_fraction < 1);
  check("max_trials", p.max_trials, Number.isInteger(p.max_trials) && p.max_trials >= 1 && p.max_trials <= MAX_TRIALS);
  check("time_budget_s", p.time_budget_s, p.time_budget_s > 0 && p.time_budget_s <= MAX_TIME_BUDGET_S);
}

/**
 * The boosting parameters of a model on `trainRows` rows: the request's over the defaults, the
 * rate, leaves and patience by the rows when the request leaves them out (defaultSchedule), and on
 * small data a leaf minimum that still lets trees split (20 rows per leaf would forbid any split
 * on 30 rows) unless the request set it.
 */
export function gbdtParams(
  requested: PredictionParams | undefined,
  trainRows: number,
  task: Task,
  numClasses: number,
): Partial<GbdtParams> & { objective: GbdtParams["objective"] } {
  const p = predictionParams(requested);
  const explicitMinData = requested?.min_data_in_leaf !== undefined;
  const minDataInLeaf = explicitMinData ? p.min_data_in_leaf : Math.min(p.min_data_in_leaf, Math.max(2, Math.floor(trainRows / 20)));
  const schedule = defaultSchedule(trainRows);
  return {
    objective: task === "regression" ? "regression" : numClasses === 2 ? "binary" : "multiclass",
    numClasses,
    learningRate: requested?.learning_rate ?? schedule.learningRate,
    numLeaves: requested?.num_leaves ?? schedule.numLeaves,
    maxDepth: p.max_depth,
    maxRounds: p.max_rounds,
    earlyStoppingRounds: requested?.early_stopping_rounds ?? schedule.earlyStoppingRounds,
    minDataInLeaf,
    ...(explicitMinData ? {} : { minDataPerGroup: Math.min(DEFAULT_GBDT_PARAMS.minDataPerGroup, minDataInLeaf) }),
    lambdaL2: p.l2,
    subsample: p.subsample,
    featureFraction: p.feature_fraction,
    seed: p.seed,
  };
}
