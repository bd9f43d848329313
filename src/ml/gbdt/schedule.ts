/**
 * The default learning rate: it grows with the training rows. Chosen with bench/ml/schedule.ts on
 * the shared benchmark datasets (bench/RESULTS.md, "Default boosting schedule"), together with
 * the default of 7 leaves per tree (DEFAULT_GBDT_PARAMS).
 *
 * Why: on tens of thousands of rows a rate of 0.1 is what the scores need (0.4-0.5 lose accuracy
 * on diamonds, cps1988, shuttle and lending_club), but at 0.1 the 360k training rows of
 * synth_500k wanted more than 500 rounds for their score. With many rows each leaf's value is
 * well estimated, so large steps cost little: at 0.5 with 7-leaf trees synth_500k scores within
 * 0.001 of 0.1 with 31 leaves in 60% of the rounds, each cheaper; fertility (183k rows) keeps its
 * score too. Small trees are what make the large rate work (31 leaves at 0.3 lose 0.008 r2 on
 * synth_500k) and cost nothing on the small datasets at 0.1.
 */

const LR_SMALL = 0.1;
const LR_LARGE = 0.5;
/** The default rate is LR_SMALL up to this many training rows, LR_LARGE from LR_ROWS_HIGH, linear in between. */
const LR_ROWS_LOW = 50_000;
const LR_ROWS_HIGH = 150_000;

/** The default learning rate for a training set of `rows` rows (validation rows not counted). */
export function defaultLearningRate(rows: number): number {
  if (rows <= LR_ROWS_LOW) return LR_SMALL;
  if (rows >= LR_ROWS_HIGH) return LR_LARGE;
  return LR_SMALL + ((LR_LARGE - LR_SMALL) * (rows - LR_ROWS_LOW)) / (LR_ROWS_HIGH - LR_ROWS_LOW);
}
