/**
 * Per-row explanation of an anomaly model: which columns make the row unusual, as contributions
 * to the anomaly score the model serves (base_value + Σ contributions = anomaly_score).
 *
 * - Isolation forest: exact path-dependent TreeSHAP over the isolation trees (../iforest/as-gbdt:
 *   leaf value = depth + c(leaf size), covers = the trees' sub-sample sizes) decomposes the row's
 *   path-length sum H around its average over the sub-samples, E[H]. The score is
 *   exp(-k·H), a decreasing function of H alone, so the parts are carried onto it by the secant
 *   rule (./rescale): a column that shortens the row's paths (isolates it early) raises its score,
 *   the order of the columns is TreeSHAP's, and the parts add to score - exp(-k·E[H]). The base
 *   value is the score of a row isolated at the training rows' average depth.
 * - Blended: the blend's logit u = (z_forest + z_reconstruction) / 2 is linear in the forest score
 *   (parts as above) and in ln(error): the row's reconstruction error splits exactly by feature
 *   (each feature's squared error, ../ssl/encoder reconstructionErrorParts), each measured against
 *   its share of the median training row's error (the file's errorShares), carried onto ln(error)
 *   by the secant rule; then u -> the logistic score by the secant rule again. Base value: the
 *   score of a row with the average isolation depth and the median reconstruction error.
 * - Flip: for a flagged row, the column (by contribution, largest first) whose value moved toward
 *   its typical training value un-flags the row, with the smallest such move (./column-change).
 */
import { applyFeaturizer, type FeaturizerSpec } from "../featurize";
import type { Frame } from "../frame";
import { type AnomalyScorer, scoreAnomalyMatrix } from "../iforest/anomaly-scorer";
import { forestAsGbdt } from "../iforest/as-gbdt";
import { LOG_EPS, logistic } from "../iforest/blend";
import { pathLengthSums, scoreScale } from "../iforest/score";
import { reconstructionErrorParts, reconstructionErrors } from "../ssl/encoder";
import { compileLayout, readRow } from "../ssl/layout";
import type { AnomalyExplainer } from "./anomaly-file";
import { anomalyTexts } from "./anomaly-text";
import { changeText, nearestChange } from "./column-change";
import type { ColumnContribution } from "./explain-prediction";
import { typicalValue } from "./feature-stats";
import { type CellValue, cellOf, mapColumns, subFrame } from "./input-columns";
import { rescaleParts } from "./rescale";
import { TreeShapExplainer } from "./treeshap";

export interface AnomalyRowExplanation {
  /** Every input column, by |contribution| descending; in anomaly-score units. */
  feature_contributions: ColumnContribution[];
  /** base_value + Σ contributions = anomaly_score. */
  base_value: number;
  output_scale: string;
  /** is_anomaly, as inference answered it. */
  prediction: boolean;
  anomaly_score: number;
  threshold: number;
  prediction_flip: { column: string; from: CellValue; to: CellValue; new_prediction: boolean; new_anomaly_score: number } | null;
  flip_reason: string | null;
  explanation_text: string;
  explanation_label: string;
  explanation_gloss: string;
}

export function explainAnomalies(ex: AnomalyExplainer, featurizer: FeaturizerSpec, frame: Frame, rows: number[]): AnomalyRowExplanation[] {
  const F = featurizer.features.length;
  if (ex.forest.numFeatures !== F) throw new Error(`explainAnomalies: the forest has ${ex.forest.numFeatures} features, the featurizer ${F}`);
  for (const r of rows) {
    if (!Number.isInteger(r) || r < 0 || r >= frame.rowCount)
      throw new RangeError(`explainAnomalies: row ${r} is not in the frame (${frame.rowCount} rows)`);
  }
  const { columns, columnOf } = mapColumns(featurizer, frame);
  const m = applyFeaturizer(featurizer, subFrame(rows, columns));
  const scorer: AnomalyScorer = { ...ex, featurizer };
  const served = scoreAnomalyMatrix(scorer, m);
  const { base, parts } = decompose(ex, m.data, rows.length, served.scores);

  /** The row with feature f set to each value, scored together. */
  const scoreWith = (x: Float32Array, f: number, values: number[]) => {
    const data = new Float32Array(values.length * F);
    values.forEach((v, i) => {
      data.set(x, i * F);
      data[i * F + f] = v;
    });
    return scoreAnomalyMatrix(scorer, { data, numRows: values.length, numFeatures: F });
  };
  const featuresOf: number[][] = columns.map(() => []);
  columnOf.forEach((j, f) => featuresOf[j].push(f));
  const indexOf = new Map(columns.map((c, j) => [c.name, j]));
  const perColumn = new Float64Array(columns.length);
  return rows.map((r, i) => {
    const x = m.data.subarray(i * F, (i + 1) * F);
    perColumn.fill(0);
    for (let f = 0; f < F; f++) perColumn[columnOf[f]] += parts[i * F + f];
    const contributions: ColumnContribution[] = columns.map((c, j) => ({ column: c.name, value: cellOf(c, r), contribution: perColumn[j] }));
    contributions.sort((a, b) => Math.abs(b.contribution) - Math.abs(a.contribution) || (a.column < b.column ? -1 : a.column > b.column ? 1 : 0));
    const flagged = served.isAnomaly[i] === 1;
    const score = served.scores[i];

    // Flip: the first column, by contribution, whose move toward its typical value un-flags the row.
    let flip: AnomalyRowExplanation["prediction_flip"] = null;
    let phrase = "";
    if (flagged) {
      for (const c of [...contributions].sort((a, b) => b.contribution - a.contribution)) {
        const j = indexOf.get(c.column)!;
        if (featuresOf[j].length !== 1 || columns[j].type === "datetime") continue;
        const f = featuresOf[j][0];
        const def = featurizer.features[f];
        const typical = typicalValue(ex.stats[f]);
        if (Number.isNaN(typical) || typical < 0 || Object.is(Math.fround(typical), x[f])) continue;
        const unflags = (values: number[]) => Array.from(scoreWith(x, f, values).isAnomaly, (a) => a === 0);
        if (!unflags([typical])[0]) continue;
        const v = def.transform === "numeric" ? nearestChange(x[f], typical, unflags, ex.stats[f]) : typical;
        const text = changeText(c.column, def, v);
        phrase = text.phrase;
        flip = { column: c.column, from: c.value, to: text.to, new_prediction: false, new_anomaly_score: scoreWith(x, f, [v]).scores[0] };
        break;
      }
    }
    const flipReason = flip
      ? null
      : flagged
        ? "no single column moved toward its typical value brings the score under the threshold"
        : "the row is not flagged as an anomaly; a counterfactual is given for flagged rows only";
    const texts = anomalyTexts({ ex, featurizer, columns, columnOf, x, contributions, score, flagged, base, flipPhrase: phrase });
    return {
      feature_contributions: contributions,
      base_value: base,
      output_scale: "anomaly score (0 to 1, higher = more unusual)",
      prediction: flagged,
      anomaly_score: score,
      threshold: ex.threshold,
      prediction_flip: flip,
      flip_reason: flipReason,
      ...texts,
    };
  });
}

/**
 * Per row and feature, the parts of the anomaly score (row-major [n x F]) and the base value they
 * start from; base + a row's parts = its served score `scores[i]` (see the module doc).
 */
function decompose(ex: AnomalyExplainer, data: Float32Array, n: number, scores: Float64Array): { base: number; parts: Float64Array } {
  const F = ex.forest.numFeatures;
  const shap = new TreeShapExplainer(forestAsGbdt(ex.forest));
  const k = scoreScale(ex.forest);
  const s0 = Math.exp(-k * shap.expectedValue[0]);
  const sums = new Float64Array(n);
  pathLengthSums(ex.forest, data, 0, n, sums);
  const parts = new Float64Array(n * F);
  const blend = ex.encoder && ex.blend && ex.errorShares ? { ...ex.blend, encoder: ex.encoder, shares: ex.errorShares } : null;
  if (!blend) {
    for (let i = 0; i < n; i++) {
      const phi = parts.subarray(i * F, (i + 1) * F);
      shap.explainInto(data.subarray(i * F, (i + 1) * F), phi);
      rescaleParts(phi, s0, scores[i], -k * s0); // scores[i] = exp(-k · sums[i]), as served
    }
    return { base: s0, parts };
  }

  const { forestMedian: fm, forestScale: fs, errorLogMedian: lm, errorLogScale: ls, encoder, shares } = blend;
  const errors = reconstructionErrors(encoder, data, n);
  const errorParts = reconstructionErrorParts(encoder, data, n);
  const L = compileLayout(encoder.features);
  const value = new Float64Array(F);
  const present = new Uint8Array(F);
  // the median training row's error (z = 0), split over the features as training errors usually are
  const reference = Math.max(0, Math.exp(lm) - LOG_EPS);
  const u0 = (s0 - fm) / fs / 2;
  const base = logistic(u0);
  const forest = new Float64Array(F);
  const recon = new Float64Array(F);
  for (let i = 0; i < n; i++) {
    const x = data.subarray(i * F, (i + 1) * F);
    const s = Math.exp(-k * sums[i]);
    forest.fill(0);
    shap.explainInto(x, forest);
    rescaleParts(forest, s0, s, -k * s0);
    // A missing feature has no error of its own: the reference is shared among the present ones.
    readRow(L, data, i, value, present, 0);
    let presentShare = 0;
    for (let j = 0; j < F; j++) if (present[j]) presentShare += shares[j];
    for (let j = 0; j < F; j++) {
      const share = presentShare > 0 ? (present[j] ? shares[j] / presentShare : 0) : shares[j];
      recon[j] = errorParts[i * F + j] - reference * share;
    }
    const r = errors[i];
    rescaleParts(recon, lm, Math.log(r + LOG_EPS), 1 / (reference + LOG_EPS));
    const row = parts.subarray(i * F, (i + 1) * F);
    for (let j = 0; j < F; j++) row[j] = forest[j] / fs / 2 + recon[j] / ls / 2;
    // the row's parts now add to u - u0; scores[i] is logistic(u), as served
    rescaleParts(row, base, scores[i], base * (1 - base));
  }
  return { base, parts };
}
