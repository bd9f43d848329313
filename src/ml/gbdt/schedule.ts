/**
 * The default boosting schedule: it depends on the training rows. Chosen with bench/ml/schedule.ts
 * on the shared benchmark datasets (bench/RESULTS.md, "Default boosting schedule") and, for large
 * tables, with bench/large/fit-vs-xgboost.ts (bench/large/RESULTS.md, "Default schedule for large
 * tables").
 *
 * The learning rate grows with the rows. Why: on tens of thousands of rows a rate of 0.1 is what
 * the scores need (0.4-0.5 lose accuracy on diamonds, cps1988, shuttle and lending_club), but at
 * 0.1 the 360k training rows of synth_500k wanted more than 500 rounds for their score. With many
 * rows each leaf's value is well estimated, so large steps cost little: at 0.5 with 7-leaf trees
 * synth_500k scores within 0.001 of 0.1 with 31 leaves in 60% of the rounds, each cheaper;
 * fertility (183k rows) keeps its score too. Small trees are what make the large rate work (31
 * leaves at 0.3 lose 0.008 r2 on synth_500k) and cost nothing on the small datasets at 0.1.
 *
 * From a million training rows on, 15-leaf trees at 0.3 with a patience of 10 rounds: on the 2 M-row
 * benchmark table, 7 leaves at 0.5 needed 132 rounds (162 with the patience) where 15 leaves at
 * 0.3 reach a better validation loss in 55, each round only a little dearer (the root's histogram
 * over every row is most of a round's cost), so the fit takes 0.6× the CPU. The patience can be
 * short there: with a tenth of a million rows or more held out the validation loss is smooth,
 * and 30 rounds of patience were half of such a fit's rounds. No shared benchmark dataset has that
 * many rows (the largest, synth_500k, trains on 360k), so their models are unchanged.
 *
 * No larger trees on larger tables: 31 leaves at 0.3 end at a worse validation loss than 15 at 2 M,
 * 5 M and 20 M rows (+0.0004 to +0.0007), and on 18 M training rows they are behind at equal CPU
 * from round 60 on (bench/large/RESULTS.md, "A schedule for tables from ~10 M training rows").
 */
import { DEFAULT_GBDT_PARAMS } from "./train";

const LR_SMALL = 0.1;
const LR_LARGE = 0.5;
/** The default rate is LR_SMALL up to this many training rows, LR_LARGE from LR_ROWS_HIGH, linear in between. */
const LR_ROWS_LOW = 50_000;
const LR_ROWS_HIGH = 150_000;

/** From this many training rows on, the large-table schedule (see above). */
const LARGE_TABLE_ROWS = 1_000_000;
const LARGE_TABLE_SCHEDULE: BoostingSchedule = { learningRate: 0.3, numLeaves: 15, earlyStoppingRounds: 10 };

/** The parameters of the default schedule that depend on the training rows. */
export interface BoostingSchedule {
  learningRate: number;
  numLeaves: number;
  earlyStoppingRounds: number;
}

/** The default schedule for a training set of `rows` rows (validation rows not counted). */
export function defaultSchedule(rows: number): BoostingSchedule {
  if (rows >= LARGE_TABLE_ROWS) return LARGE_TABLE_SCHEDULE;
  const { numLeaves, earlyStoppingRounds } = DEFAULT_GBDT_PARAMS;
  return { learningRate: defaultLearningRate(rows), numLeaves, earlyStoppingRounds };
}

/**
 * The default learning rate below LARGE_TABLE_ROWS training rows (with DEFAULT_GBDT_PARAMS' 7
 * leaves and patience of 30 rounds).
 */
export function defaultLearningRate(rows: number): number {
  if (rows <= LR_ROWS_LOW) return LR_SMALL;
  if (rows >= LR_ROWS_HIGH) return LR_LARGE;
  return LR_SMALL + ((LR_LARGE - LR_SMALL) * (rows - LR_ROWS_LOW)) / (LR_ROWS_HIGH - LR_ROWS_LOW);
}
