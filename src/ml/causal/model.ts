/**
 * The `causal` model: the label column is the outcome, the treatment is `params.action_column` or
 * inferred (./treatment). A doubly-robust learner (./aipw): cross-fitted GBDT outcome models per
 * arm (./outcome-models; tree settings screened per dataset, ./nuisance-settings) and a GBDT
 * propensity model give AIPW pseudo-outcomes φ, whose mean is the average treatment effect (ATE)
 * with an influence-function interval; then
 * - the effect model (CATE), one per treated arm: with `learner` "auto" the T-, S-, X- and
 *   DR-learners and the constant average effect (./learners) are fit out of fold and stacked on
 *   the overlap-weighted DR pseudo-outcome loss: the convex blend minimising it, averaged over
 *   bootstrap resamples, is served (./learner-search, ./select); a fixed `learner` is served as given. The DR-learner is the GBDT regression of φ
 *   weighted by w(x) = e_a·e_c/(e_a + e_c) (binary: e(1 − e)) from the cross-fitted propensities
 *   (./aipw overlapWeights): φ's noise variance grows like 1/e_a + 1/e_c, w is its inverse up to a
 *   constant, and since w depends on x only the fit still targets E[φ | x] = τ(x). Every learner's
 *   CATE (and a blend) is one regression tree ensemble (../gbdt/blend), so the graph and TreeSHAP
 *   explanations take it as before. The ATE does not depend on the learner (the mean of φ);
 * - the outcome models served at inference: one per arm refit on all rows (not the average of the
 *   fold models: one model per arm keeps the graph small), so `effect` (the CATE model) is not
 *   exactly outcome_if_treated − outcome_if_control (unless T alone is served on a numeric outcome).
 * Binary outcomes: μ are probabilities (binary objective), effects on the probability scale.
 * The job output's `learner` says what was served and why (every candidate's loss, the nuisance
 * settings chosen with their held-out losses).
 *
 * ONNX: ./onnx. Files: `pseudo_outcomes.bin`, little-endian float64, row-major
 * [training frame rows × (arms − 1)], in the training frame's row order, NaN for rows not used
 * (missing treatment or outcome): the cross-fitted φ for later estimates over groups of rows
 * (the mean of a group's φ is its AIPW estimate, aipwEstimate gives its interval).
 */
import { MlInputError } from "../errors";
import { TreeShapExplainer } from "../explain/treeshap";
import { applyFeaturizer, type FeatureMatrix, type FeaturizerSpec, featureKinds, selectFeatures } from "../featurize";
import type { FitStep, UnsupervisedModel } from "../fit/contract";
import type { Frame } from "../frame";
import type { GbdtModel } from "../gbdt/model";
import { predict } from "../gbdt/predict";
import { deriveModelFeatures, type Representation } from "../representation/representation";
import { type AipwEstimate, aipwEstimate, armColumn, crossFitCount, crossFitSteps, overlapWeights, pseudoOutcomes } from "./aipw";
import { type FitInput, fitGbdt } from "./fit";
import { armProblem, chooseLearner, fitServedEffects, type LearnerChoice, type SearchInput, scoringFitCount, servedFitCount } from "./learner-search";
import { LEARNERS } from "./learners";
import { chooseNuisanceSettings, NUISANCE_SETTINGS, nuisanceScreenCount } from "./nuisance-settings";
import { type CausalPredictors, exportCausalOnnx } from "./onnx";
import { fitOutcomeModels, outcomeFitCount } from "./outcome-models";
import { resolveOutcome, resolveTreatment } from "./treatment";

/** @internal exported for test/ml/causal.test.ts */
export interface CausalParams {
  /** The treatment column; absent: inferred (./treatment). */
  action_column?: string;
  /** The control arm's value; absent: the value reading as "not treated" (0, false, no, control, ...). */
  control_value?: string;
  /** Propensity clip bounds, 0 < lo < hi < 1; default [0.01, 0.99]. */
  propensity_clip?: [number, number];
  /** Cross-fitting folds, integer in [2, 20]; default 5. */
  folds?: number;
  /** Integer; default 0. */
  seed?: number;
  /** The CATE learner: "auto" (default; chosen by cross-validated loss, ./select) or a fixed one. */
  learner?: LearnerChoice;
}

export const DEFAULT_CAUSAL_PARAMS = {
  propensity_clip: [0.01, 0.99] as [number, number],
  folds: 5,
  seed: 0,
  learner: "auto" as LearnerChoice,
};

/** Fewest rows an arm needs (each fold's training part must hold some of every arm). */
const MIN_ARM_ROWS = 10;
/** Poor overlap: more than this share of rows had a propensity outside the clip bounds. */
const MAX_CLIPPED_SHARE = 0.05;
/** Features listed as driving the effect's heterogeneity. */
const TOP_FEATURES = 10;
/** Rows whose TreeSHAP contributions rank them. */
const IMPORTANCE_ROWS = 200;

export interface CausalPredictor extends CausalPredictors {
  featurizer: FeaturizerSpec;
}

export interface CausalModel extends UnsupervisedModel {
  predictor: CausalPredictor;
  /** Per frame row × treated arm, NaN for unused rows (the contents of pseudo_outcomes.bin). */
  pseudo: Float64Array;
}

export interface CausalTrainOptions {
  representation: Representation;
  labelColumn: string;
  inputColumns?: string[] | null;
  params: CausalParams;
}

export function* trainCausalSteps(frame: Frame, opts: CausalTrainOptions): Generator<FitStep, CausalModel, void> {
  const p = resolveParams(opts.params ?? {});
  if (frame.rowCount === 0) throw new MlInputError("the dataset has no rows");
  const outcome = resolveOutcome(frame, opts.labelColumn);
  const tr = resolveTreatment(frame, opts.labelColumn, p.action_column, p.control_value);
  const K = tr.arms.length;
  const A = K - 1;

  const derived = deriveModelFeatures(opts.representation, opts.labelColumn, opts.inputColumns ?? undefined);
  const keep = derived.featurizer.features.map((f) => f.source !== tr.column);
  const featurizer = selectFeatures(derived.featurizer, (src) => src !== tr.column, "treatment column");
  const bins = derived.bins.filter((_, i) => keep[i]);
  if (featurizer.features.length === 0) {
    const why = featurizer.columns.map((c) => `${c.name}: ${c.reason ?? "unused"}`);
    throw new MlInputError(`no usable feature columns besides the outcome and the treatment (${why.join("; ")})`);
  }

  const used: number[] = [];
  for (let i = 0; i < frame.rowCount; i++) if (tr.arm[i] >= 0 && outcome.y[i] === outcome.y[i]) used.push(i);
  const rows = Int32Array.from(used);
  const counts = new Array<number>(K).fill(0);
  for (const r of rows) counts[tr.arm[r]]++;
  counts.forEach((c, k) => {
    if (c < MIN_ARM_ROWS) {
      throw new MlInputError(`treatment "${tr.column}" = "${tr.arms[k]}" has ${c} row(s) with an outcome; each arm needs at least ${MIN_ARM_ROWS}`);
    }
  });

  const m = applyFeaturizer(featurizer, frame);
  const input: FitInput = {
    m,
    categorical: featureKinds(featurizer).map((k) => k.type === "categorical"),
    featureNames: featurizer.features.map((f) => f.name),
    bins,
  };
  const objective = outcome.kind === "binary" ? "binary" : "regression";
  const planned = (served: number) =>
    nuisanceScreenCount(K, objective) +
    crossFitCount(p.folds, K, objective) +
    outcomeFitCount(K, objective) +
    1 +
    scoringFitCount(p.learner, { K, folds: p.folds, outcome: objective }) +
    served;
  // until the choice is made, the plan counts the served fits of every candidate (a full blend)
  let totalSteps = planned(
    servedFitCount(p.learner === "auto" ? Object.fromEntries(LEARNERS.map((l) => [l, 1])) : { [p.learner]: 1 }, { K, outcome: objective }),
  );
  let step = 0;
  const screen = chooseNuisanceSettings(input, outcome.y, tr.arm, rows, K, { folds: p.folds, seed: p.seed, outcome: objective });
  let sc: ReturnType<typeof screen.next>;
  while (!(sc = screen.next()).done) yield { phase: "fit", step: ++step, totalSteps };
  const nuisance = sc.value;
  const outcomeSettings = NUISANCE_SETTINGS[nuisance.outcome];
  const propensitySettings = NUISANCE_SETTINGS[nuisance.propensity];
  const cross = crossFitSteps(input, outcome.y, tr.arm, rows, K, {
    folds: p.folds,
    seed: p.seed,
    outcome: objective,
    outcomeSettings,
    propensitySettings,
  });
  let cf: ReturnType<typeof cross.next>;
  while (!(cf = cross.next()).done) yield { phase: "fit", step: ++step, totalSteps };
  const po = pseudoOutcomes(cf.value, outcome.y, tr.arm, rows, K, p.propensity_clip);

  // outcome models on all of each arm's rows (what inference serves)
  const fitting = fitOutcomeModels(input, outcome.y, tr.arm, rows, K, { outcome: objective, seed: p.seed + 104729, settings: outcomeSettings });
  let om: ReturnType<typeof fitting.next>;
  while (!(om = fitting.next()).done) yield { phase: "fit", step: ++step, totalSteps };
  const outcomeModels = om.value;
  // the propensity model on all rows (estimates over new data with treatment and outcome need it)
  const armLabel = Float64Array.from(tr.arm, (k) => (k < 0 ? NaN : k));
  const propensityObjective = K === 2 ? "binary" : "multiclass";
  const propensity = fitGbdt(input, armLabel, rows, propensityObjective, {
    kind: "nuisance",
    seed: p.seed + 15485863,
    numClasses: K,
    settings: propensitySettings,
  });
  yield { phase: "fit", step: ++step, totalSteps };
  // the effect models: the chosen learner (or blend) per treated arm, and the per-row file
  const pseudo = new Float64Array(frame.rowCount * A).fill(NaN);
  for (let j = 0; j < rows.length; j++) for (let a = 0; a < A; a++) pseudo[rows[j] * A + a] = po.phi[j * A + a];
  const search: SearchInput = {
    input,
    y: outcome.y,
    arm: tr.arm,
    rows,
    K,
    cf: cf.value,
    po,
    weights: overlapWeights(cf.value, K),
    outcome: objective,
    outcomeSettings,
    folds: p.folds,
    seed: p.seed,
    clip: p.propensity_clip,
  };
  const problems = Array.from({ length: A }, (_, a) => armProblem(search, a + 1, cf.value, po.phi, search.weights));
  const choosing = chooseLearner(search, p.learner);
  let ch: ReturnType<typeof choosing.next>;
  while (!(ch = choosing.next()).done) yield { phase: "fit", step: ++step, totalSteps };
  const selection = ch.value;
  const mix = selection ? selection.weights : { [p.learner as Exclude<LearnerChoice, "auto">]: 1 };
  totalSteps = planned(servedFitCount(mix, { K, outcome: objective }));
  const serving = fitServedEffects(search, problems, mix, outcomeModels);
  let sv: ReturnType<typeof serving.next>;
  while (!(sv = serving.next()).done) yield { phase: "fit", step: ++step, totalSteps };
  const effectModels = sv.value;
  // a learner reusing the outcome models fits nothing more: the last step still closes the plan
  if (step < totalSteps) yield { phase: "fit", step: (step = totalSteps), totalSteps };
  const estimates: Record<string, unknown>[] = [];
  const naive = naiveDifferences(outcome.y, tr.arm, rows, K);
  for (let a = 0; a < A; a++) {
    const est: AipwEstimate = aipwEstimate(armColumn(po.phi, A, a));
    estimates.push({
      arm: tr.arms[a + 1],
      ...est,
      n_treated: counts[a + 1],
      n_control: counts[0],
      naive_difference: naive[a],
      heterogeneity_features: topFeatures(effectModels[a], m, rows),
    });
  }
  const learner = {
    choice: p.learner,
    served: mix,
    candidate_losses: selection?.losses ?? null,
    served_loss: selection?.loss ?? null,
    loss: "out-of-fold overlap-weighted DR pseudo-outcome loss, summed over the treated arms (lower is better); the served blend's weights minimise it, averaged over bootstrap resamples",
    nuisance: {
      outcome_trees: nuisance.outcome,
      propensity_trees: nuisance.propensity,
      outcome_losses: nuisance.outcomeLoss,
      propensity_losses: nuisance.propensityLoss,
    },
  };

  const [lo, hi] = p.propensity_clip;
  const clippedShare = po.clippedRows / rows.length;
  const warnings = overlapWarnings(clippedShare, po.propensityMin, po.propensityMax, p.propensity_clip);
  const predictor: CausalPredictor = { featurizer, effect: effectModels, outcome: outcomeModels, propensity };
  const main = A === 1 ? estimates[0] : null;
  const common = {
    method: `cross-fitted AIPW (doubly robust) with GBDT nuisance models; CATE: ${describeMix(mix)}`,
    learner,
    treatment_column: tr.column,
    treatment_reason: tr.reason,
    outcome_column: opts.labelColumn,
    outcome_kind: outcome.kind,
    effect_scale: outcome.kind === "binary" ? `probability of ${opts.labelColumn} = "${outcome.classes![1]}"` : `units of ${opts.labelColumn}`,
    control_value: tr.arms[0],
    treated_arms: tr.arms.slice(1),
    n: rows.length,
    n_treated: rows.length - counts[0],
    n_control: counts[0],
    n_dropped: frame.rowCount - rows.length,
    ate: main ? main.ate : null,
    std_error: main ? main.std_error : null,
    ci_low: main ? main.ci_low : null,
    ci_high: main ? main.ci_high : null,
    confidence: 0.95,
    heterogeneity_features: main ? main.heterogeneity_features : null,
    estimates,
    propensity_range: [po.propensityMin, po.propensityMax],
    propensity_clip: [lo, hi],
    clipped_share: clippedShare,
    warnings,
  };
  const head = {
    treatment_column: tr.column,
    outcome_column: opts.labelColumn,
    outcome_kind: outcome.kind,
    outcome_classes: outcome.classes,
    control_value: tr.arms[0],
    treated_arms: tr.arms.slice(1),
    propensity_clip: [lo, hi],
    effect_scale: common.effect_scale,
    effect_output: "effect",
    outputs: {
      effect: A === 1 ? "double [N]" : `double [N, ${A}] (columns: treated_arms)`,
      outcome_if_treated: A === 1 ? "double [N]" : `double [N, ${A}] (columns: treated_arms)`,
      outcome_if_control: "double [N]",
      propensity: `double [N, ${K}] (columns: control_value, then treated_arms)`,
    },
    ignored_columns: [tr.column, opts.labelColumn],
    pseudo_outcomes: {
      file: "pseudo_outcomes.bin",
      dtype: "float64 little-endian",
      shape: [frame.rowCount, A],
      rows: "training frame row order; NaN = row not used",
    },
    ate: common.ate,
    std_error: common.std_error,
    ci_low: common.ci_low,
    ci_high: common.ci_high,
    n: common.n,
    n_treated: common.n_treated,
    n_control: common.n_control,
    estimates: estimates.map((e) => ({ arm: e.arm, ate: e.ate, std_error: e.std_error, ci_low: e.ci_low, ci_high: e.ci_high, n: e.n })),
  };
  return {
    modelType: "causal",
    featurizer,
    onnx: exportCausalOnnx(predictor, {
      treatment_column: tr.column,
      outcome_column: opts.labelColumn,
      control_value: tr.arms[0],
      treated_arms: JSON.stringify(tr.arms.slice(1)),
    }),
    head,
    metrics: {},
    output: common,
    summary: { ...common, folds: p.folds, seed: p.seed, features: featurizer.features.length },
    files: [
      { name: "pseudo_outcomes.bin", bytes: float64le(pseudo) },
      // the effect models' trees, what explanations walk (TreeSHAP)
      { name: "gbdt.json", bytes: new TextEncoder().encode(JSON.stringify(effectModels)) },
    ],
    predictor,
    pseudo,
  };
}

export interface CausalPredictions {
  /** Row-major [N × treated arms]. */
  effect: Float64Array;
  outcomeIfTreated: Float64Array;
  /** [N]. */
  outcomeIfControl: Float64Array;
  /** Row-major [N × arms], control first. */
  propensity: Float64Array;
}

/** The engine's per-row predictions for a frame (what the ONNX graph reproduces). */
export function predictCausal(pr: CausalPredictor, frame: Frame): CausalPredictions {
  const m = applyFeaturizer(pr.featurizer, frame);
  const A = pr.effect.length;
  const N = m.numRows;
  const effect = new Float64Array(N * A);
  const outcomeIfTreated = new Float64Array(N * A);
  for (let a = 0; a < A; a++) {
    const e = predict(pr.effect[a], m.data, N);
    const t = predict(pr.outcome[a + 1], m.data, N);
    for (let i = 0; i < N; i++) {
      effect[i * A + a] = e[i];
      outcomeIfTreated[i * A + a] = t[i];
    }
  }
  const raw = predict(pr.propensity, m.data, N);
  const propensity =
    pr.propensity.objective === "binary" ? Float64Array.from({ length: 2 * N }, (_, j) => (j % 2 ? raw[j >> 1] : 1 - raw[j >> 1])) : raw;
  return { effect, outcomeIfTreated, outcomeIfControl: predict(pr.outcome[0], m.data, N), propensity };
}

/**
 * Poor overlap: more than MAX_CLIPPED_SHARE of rows had a propensity outside the clip bounds, or
 * the propensity range reaches a bound (some rows are (nearly) always or never treated: for them
 * the estimate leans on extrapolating the outcome models).
 */
function overlapWarnings(clippedShare: number, min: number, max: number, [lo, hi]: [number, number]): string[] {
  const w: string[] = [];
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  if (clippedShare > MAX_CLIPPED_SHARE) {
    w.push(
      `poor overlap: ${pct(clippedShare)} of rows had a propensity outside [${lo}, ${hi}] (more than ${pct(MAX_CLIPPED_SHARE)}); the estimate relies on the outcome models for them and may be biased`,
    );
  } else if (min <= lo || max >= hi) {
    w.push(
      `poor overlap for some rows: the propensity range [${min.toPrecision(3)}, ${max.toPrecision(3)}] reaches the clip bounds [${lo}, ${hi}] (${pct(clippedShare)} of rows clipped)`,
    );
  }
  return w;
}

const LEARNER_WORDS: Record<string, string> = {
  t: "T-learner (outcome model per arm, difference)",
  s: "S-learner (one outcome model with the treatment as a feature)",
  x: "X-learner (imputed effects per arm, mixed by the treated share)",
  dr: "DR-learner (GBDT on the AIPW pseudo-outcomes, weighted by propensity overlap)",
  ate: "the average effect (constant)",
};

/** The served CATE in words: one learner, or a blend with its weights. */
function describeMix(mix: Record<string, number | undefined>): string {
  const parts = Object.entries(mix).map(([l, w]) => (w === 1 ? LEARNER_WORDS[l] : `${w} × ${LEARNER_WORDS[l]}`));
  return parts.length === 1 ? parts[0] : `blend of ${parts.join(" + ")}`;
}

/** Mean outcome of each treated arm minus the control's (no adjustment: what confounding biases). */
function naiveDifferences(y: Float64Array, arm: Int32Array, rows: Int32Array, K: number): number[] {
  const sum = new Float64Array(K);
  const cnt = new Float64Array(K);
  for (const r of rows) {
    sum[arm[r]] += y[r];
    cnt[arm[r]]++;
  }
  return Array.from({ length: K - 1 }, (_, a) => sum[a + 1] / cnt[a + 1] - sum[0] / cnt[0]);
}

/**
 * Features by their share of the effect's mean |TreeSHAP contribution| over up to
 * IMPORTANCE_ROWS of the used rows (evenly spaced), top TOP_FEATURES with a share. Not split gain:
 * a T- or S-learner's effect model holds both arms' outcome trees, whose splits on a feature that
 * moves the outcome but not the effect have large gains that cancel in the difference; the
 * contributions to the effect itself do cancel.
 */
function topFeatures(model: GbdtModel, m: FeatureMatrix, rows: Int32Array): { feature: string; importance: number }[] {
  const F = model.numFeatures;
  const explainer = new TreeShapExplainer(model);
  const sum = new Float64Array(F);
  const step = Math.max(1, Math.floor(rows.length / IMPORTANCE_ROWS));
  for (let j = 0; j < rows.length; j += step) {
    const r = rows[j];
    const c = explainer.explain(m.data.subarray(r * F, r * F + F)).contributions[0];
    for (let f = 0; f < F; f++) sum[f] += Math.abs(c[f]);
  }
  const total = sum.reduce((s, v) => s + v, 0);
  if (!(total > 0)) return [];
  return [...sum.keys()]
    .filter((f) => sum[f] / total > 1e-6)
    .sort((a, b) => sum[b] - sum[a] || a - b)
    .slice(0, TOP_FEATURES)
    .map((f) => ({ feature: model.featureNames[f], importance: sum[f] / total }));
}

function float64le(values: Float64Array): Uint8Array {
  const bytes = new Uint8Array(values.length * 8);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < values.length; i++) view.setFloat64(i * 8, values[i], true);
  return bytes;
}

function resolveParams(params: CausalParams) {
  const p = {
    action_column: params.action_column ?? undefined,
    control_value: params.control_value ?? undefined,
    propensity_clip: params.propensity_clip ?? DEFAULT_CAUSAL_PARAMS.propensity_clip,
    folds: params.folds ?? DEFAULT_CAUSAL_PARAMS.folds,
    seed: params.seed ?? DEFAULT_CAUSAL_PARAMS.seed,
    learner: params.learner ?? DEFAULT_CAUSAL_PARAMS.learner,
  };
  const check = (name: string, v: unknown, ok: boolean) => {
    if (!ok) throw new MlInputError(`invalid parameter ${name}: ${JSON.stringify(v)}`);
  };
  const c = p.propensity_clip;
  check(
    "propensity_clip",
    c,
    Array.isArray(c) && c.length === 2 && c.every((x) => typeof x === "number" && Number.isFinite(x)) && c[0] > 0 && c[0] < c[1] && c[1] < 1,
  );
  check("folds", p.folds, Number.isInteger(p.folds) && p.folds >= 2 && p.folds <= 20);
  check("seed", p.seed, Number.isInteger(p.seed));
  check("learner", p.learner, p.learner === "auto" || (LEARNERS as readonly string[]).includes(p.learner));
  return p;
}
