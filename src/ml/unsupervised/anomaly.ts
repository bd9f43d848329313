/**
 * The `anomaly` model: an isolation forest (../iforest) on the model's featurized matrix,
 * optionally blended with the encoder's reconstruction error (../iforest/blend), and a threshold
 * on the training rows' scores that decides `is_anomaly`.
 *
 * Scores are in [0, 1], higher = more anomalous: the forest's 2^(-E[h]/c(ψ)), or the blend.
 * Threshold: with `contamination` c, the (1 - c) quantile of the training scores; without, the
 * modified z-score rule (median + 3.5 · 1.4826 · MAD of the training scores), see
 * ../iforest/threshold. `is_anomaly` = score > threshold.
 *
 * ONNX: features float32 [N,F] -> double -> TreeEnsemble (path-length sums) -> exp(-k·sum)
 * [-> blend with the reconstruction error] -> `anomaly_score` double [N], `is_anomaly` bool [N].
 * Explanations read `iforest.json` (../explain/anomaly-file), written here too. The scorer the
 * model keeps, and the engine's scoring of new rows, are ../iforest/anomaly-scorer.
 */
import { MlInputError } from "../errors";
import { anomalyExplainFile } from "../explain/anomaly-file";
import { applyFeaturizer } from "../featurize";
import type { FitStep, UnsupervisedModel, UnsupervisedTrainOptions } from "../fit/contract";
import { cellValue, type Frame, findColumn } from "../frame";
import { ANOMALY_METHODS, type AnomalyMethod, type AnomalyScorer, finishScores } from "../iforest/anomaly-scorer";
import { addBlendStage, fitBlend, logistic } from "../iforest/blend";
import { type IsolationForest, trainIsolationForestSteps } from "../iforest/forest";
import { addIsolationForestStage } from "../iforest/onnx";
import { quantileSorted } from "../iforest/robust";
import { pathLengthSums, toScores } from "../iforest/score";
import { anomalyThreshold, MODIFIED_Z_CUT, type ThresholdRule } from "../iforest/threshold";
import { GraphBuilder } from "../onnx/graph";
import { DataType } from "../onnx/onnx-proto";
import { addFeaturesInput, addReconstructionErrorStage, encoderFor, standardSpace } from "../space/space";
import { reconstructionErrors } from "../ssl/encoder";

export interface AnomalyParams {
  /** Trees, integer in [1, 1000]; default 200. */
  n_estimators?: number;
  /**
   * Sub-sample rows per tree (ψ), integer in [2, 65536], capped at the row count; default 256.
   * n_estimators × min(max_samples, rows) must not pass MAX_TREE_ROWS (the model's size).
   */
  max_samples?: number;
  /** Integer; default 0. */
  seed?: number;
  /** Default "isolation_forest" (see bench/unsupervised/anomaly-RESULTS.md). */
  method?: AnomalyMethod;
  /** Expected share of anomalies, in (0, 0.5]; absent: the modified z-score rule decides. */
  contamination?: number | null;
}

export const DEFAULT_ANOMALY_PARAMS = { n_estimators: 200, max_samples: 256, seed: 0, method: "isolation_forest" as AnomalyMethod };

/**
 * Bound on n_estimators × ψ: a tree has fewer than 2ψ nodes, so this keeps the forest under
 * 512k nodes (an ONNX file of ~2.5 MB; the default 200 × 256 is ~0.6 MB). onnxruntime holds a
 * TreeEnsemble in ~20× its file size: 1000 × 1024 (four times this bound) took ~185 MB more than
 * the default forest when loaded, far past a Worker's 128 MB.
 */
export const MAX_TREE_ROWS = 1 << 18;

/** Most training rows listed in the job output's `anomalous_ids`. */
const MAX_LISTED_IDS = 1000;
/** Rows scored per progress step when scoring the training rows. */
const SCORE_CHUNK = 65536;

export interface AnomalyModel extends UnsupervisedModel {
  scorer: AnomalyScorer;
}

export function* trainAnomalySteps(frame: Frame, opts: UnsupervisedTrainOptions<AnomalyParams>): Generator<FitStep, AnomalyModel, void> {
  const p = resolveParams(opts.params ?? {});
  if (frame.rowCount < 2) throw new MlInputError("anomaly detection needs at least 2 rows");
  const psi = Math.min(p.max_samples, frame.rowCount);
  if (p.n_estimators * psi > MAX_TREE_ROWS) {
    throw new MlInputError(`n_estimators × max_samples is ${p.n_estimators} × ${psi}: at most ${MAX_TREE_ROWS} (the model's size) is allowed`);
  }
  const rep = opts.representation;
  const space = standardSpace(rep, opts.inputColumns);
  const encoder = p.method === "blended" ? yield* encoderFor(frame, rep, space, { seed: p.seed }) : null;
  const m = applyFeaturizer(space.featurizer, frame);

  const chunks = Math.ceil(m.numRows / SCORE_CHUNK);
  const totalSteps = p.n_estimators + chunks;
  const growing = trainIsolationForestSteps(m.data, m.numRows, m.numFeatures, { numTrees: p.n_estimators, maxSamples: p.max_samples, seed: p.seed });
  let forest: IsolationForest;
  for (;;) {
    const r = growing.next();
    if (r.done) {
      forest = r.value;
      break;
    }
    yield { phase: "fit", step: r.value, totalSteps };
  }
  const forestScores = new Float64Array(m.numRows);
  for (let c = 0; c < chunks; c++) {
    const start = c * SCORE_CHUNK;
    const end = Math.min(m.numRows, start + SCORE_CHUNK);
    pathLengthSums(forest, m.data, start, end, forestScores.subarray(start, end));
    yield { phase: "fit", step: p.n_estimators + c + 1, totalSteps };
  }
  toScores(forest, forestScores);

  const errors = encoder ? reconstructionErrors(encoder, m.data, m.numRows) : null;
  const blend = errors ? fitBlend(forestScores, errors) : null;
  const scorer: AnomalyScorer = { method: p.method, featurizer: space.featurizer, forest, encoder, blend, threshold: NaN, cut: NaN };
  const { scores, cutValues } = finishScores(scorer, forestScores, errors);
  const rule: ThresholdRule =
    p.contamination != null ? { rule: "contamination", contamination: p.contamination } : { rule: "modified_z", z: MODIFIED_Z_CUT };
  scorer.cut = anomalyThreshold(cutValues, rule);
  scorer.threshold = blend ? logistic(scorer.cut) : scorer.cut;
  const threshold = scorer.threshold;
  const flagged = rankFlagged(cutValues, scorer.cut);
  const ids = idsOf(frame, flagged.slice(0, MAX_LISTED_IDS));
  const ruleText = describeRule(rule);
  const sorted = Float64Array.from(scores).sort();
  const quantiles = Object.fromEntries(
    [
      ["min", 0],
      ["p25", 0.25],
      ["p50", 0.5],
      ["p75", 0.75],
      ["p90", 0.9],
      ["p95", 0.95],
      ["p99", 0.99],
      ["max", 1],
    ].map(([k, q]) => [k, quantileSorted(sorted, q as number)]),
  );
  return {
    modelType: "anomaly",
    featurizer: space.featurizer,
    onnx: exportAnomalyOnnx(scorer),
    head: { method: p.method, threshold, threshold_rule: ruleText, score_output: "anomaly_score", flag_output: "is_anomaly" },
    metrics: {},
    output: { method: p.method, threshold, threshold_rule: ruleText, anomalous_count: flagged.length, anomalous_ids: ids },
    summary: {
      method: p.method,
      n_estimators: p.n_estimators,
      max_samples: forest.sampleSize,
      features: m.numFeatures,
      threshold,
      threshold_rule: ruleText,
      training_rows: m.numRows,
      anomalous_count: flagged.length,
      score_quantiles: quantiles,
      ...(blend ? { blend: { ...blend, encoder: encoder === rep.encoder ? "shared" : "trained for this model" } } : {}),
    },
    // what explanations read besides the graph (the trees' sub-sample sizes, typical values)
    files: [anomalyExplainFile(scorer, space.featurizer, m)],
    scorer,
  };
}

function exportAnomalyOnnx(scorer: AnomalyScorer): Uint8Array {
  const g = new GraphBuilder();
  const x = addFeaturesInput(g, scorer.forest.numFeatures);
  let score = addIsolationForestStage(g, scorer.forest, x);
  let cutValue = score;
  if (scorer.encoder && scorer.blend) {
    const blended = addBlendStage(g, scorer.blend, score, addReconstructionErrorStage(g, scorer.encoder, x));
    score = blended.score;
    cutValue = blended.logit;
  }
  g.output(score, "anomaly_score", DataType.DOUBLE, ["N"], "in [0, 1], higher = more anomalous");
  const flag = g.op("Greater", [cutValue, g.double([scorer.cut], [])]);
  g.output(flag, "is_anomaly", DataType.BOOL, ["N"], "anomaly_score > threshold");
  return g.finish({
    name: "anomaly",
    docString: `isolation forest (${scorer.forest.numTrees} trees, ψ = ${scorer.forest.sampleSize})${scorer.blend ? " blended with reconstruction error" : ""}`,
    metadata: { model_type: "anomaly", method: scorer.method, threshold: String(scorer.threshold) },
    usesMl: true,
  });
}

function resolveParams(params: AnomalyParams): Required<Omit<AnomalyParams, "contamination">> & { contamination: number | null } {
  const p = {
    n_estimators: params.n_estimators ?? DEFAULT_ANOMALY_PARAMS.n_estimators,
    max_samples: params.max_samples ?? DEFAULT_ANOMALY_PARAMS.max_samples,
    seed: params.seed ?? DEFAULT_ANOMALY_PARAMS.seed,
    method: params.method ?? DEFAULT_ANOMALY_PARAMS.method,
    contamination: params.contamination ?? null,
  };
  const check = (name: string, v: unknown, ok: boolean) => {
    if (!ok) throw new MlInputError(`invalid parameter ${name}: ${String(v)}`);
  };
  check("n_estimators", p.n_estimators, Number.isInteger(p.n_estimators) && p.n_estimators >= 1 && p.n_estimators <= 1000);
  check("max_samples", p.max_samples, Number.isInteger(p.max_samples) && p.max_samples >= 2 && p.max_samples <= 65536);
  check("seed", p.seed, Number.isInteger(p.seed));
  check("method", p.method, (ANOMALY_METHODS as readonly string[]).includes(p.method));
  const c = p.contamination;
  check("contamination", c, c === null || (typeof c === "number" && c > 0 && c <= 0.5));
  return p;
}

function describeRule(rule: ThresholdRule): string {
  if (rule.rule === "contamination")
    return `contamination ${rule.contamination}: the ${Number((1 - rule.contamination).toPrecision(12))} quantile of the training scores`;
  return `modified z-score > ${rule.z}: median + ${rule.z} × 1.4826 × MAD of the training scores`;
}

/** Rows with value > cut, highest first (ties: lower row first). */
function rankFlagged(values: Float64Array, cut: number): number[] {
  const rows: number[] = [];
  for (let i = 0; i < values.length; i++) if (values[i] > cut) rows.push(i);
  return rows.sort((a, b) => values[b] - values[a] || a - b);
}

/** The rows' ids: the `id` column's values, else the first column's (row index when missing). */
function idsOf(frame: Frame, rows: number[]): (string | number | boolean)[] {
  const col = findColumn(frame, "id") ?? frame.columns[0];
  return rows.map((r) => (col ? (cellValue(col, r) ?? r) : r));
}
