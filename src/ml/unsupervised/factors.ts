/**
 * The `factors` model: principal components of the standardized features (../space/space), optionally
 * varimax-rotated (../factors/pca has the math, solver choice and sign convention).
 *
 * Every training row is used; the standardized matrix is produced a chunk of rows at a time, so
 * it never exists whole (a wide table with many rows would not fit in memory as float64).
 * Factor scores: (x − mean)·componentsᵀ on the standardized row x, as scikit-learn's
 * PCA.transform when unrotated.
 *
 * ONNX: features float32 [N,F] → double → standardize → Sub(mean) → MatMul(componentsᵀ) →
 * `factors` double [N,k].
 */
import { MlInputError } from "../errors";
import type { ChunkSource } from "../factors/passes";
import { AUTO_MAX, AUTO_VARIANCE, fitPcaSteps, type PcaFit, type Rotation } from "../factors/pca";
import { applyFeaturizer, type FeatureMatrix, type FeaturizerSpec } from "../featurize";
import type { FitStep, UnsupervisedModel, UnsupervisedTrainOptions } from "../fit/contract";
import type { Frame } from "../frame";
import { GraphBuilder } from "../onnx/graph";
import { DataType } from "../onnx/onnx-proto";
import { addFeaturesInput, addStandardizeStage, type StandardSpace, standardize, standardSpace } from "../space/space";

const FACTOR_ROTATIONS = ["none", "varimax"] as const;

export interface FactorsParams {
  /** Factors to keep: integer in [1, D] (D = standardized columns); absent/null: the 90% rule. */
  n_components?: number | null;
  /** Default "none". */
  rotation?: Rotation;
  /** Seed of the randomized solver (wide data only); integer, default 0. */
  seed?: number;
}

/** What the Worker needs to shape the graph's output. */
interface FactorsHead {
  /** The graph output's name ("factors") and its column names factor_1..factor_k. */
  output: "factors";
  columns: string[];
  n_components: number;
  rotation: Rotation;
}

/** What the engine needs to score new rows (what the ONNX graph encodes). */
interface FactorsScorer {
  featurizer: FeaturizerSpec;
  space: StandardSpace;
  fit: PcaFit;
}

export interface FactorsModel extends UnsupervisedModel {
  scorer: FactorsScorer;
}

/** Loadings listed per factor in `top_features`. */
const TOP_FEATURES = 5;
/** Standardized values per chunk (2 MB of float64). */
const CHUNK_VALUES = 1 << 18;

export function* trainFactorsSteps(frame: Frame, opts: UnsupervisedTrainOptions<FactorsParams>): Generator<FitStep, FactorsModel, void> {
  const params = resolveParams(opts.params ?? {});
  if (frame.rowCount < 2) throw new MlInputError("factor analysis needs at least 2 rows");
  const space = standardSpace(opts.representation, opts.inputColumns);
  const m = applyFeaturizer(space.featurizer, frame);
  const steps = fitPcaSteps(chunkedSource(space, m), { nComponents: params.n_components, rotation: params.rotation, seed: params.seed });
  let fit: PcaFit;
  for (;;) {
    const r = steps.next();
    if (r.done) {
      fit = r.value;
      break;
    }
    yield { phase: "fit", step: r.value.step, totalSteps: r.value.totalSteps };
  }
  const scorer: FactorsScorer = { featurizer: space.featurizer, space, fit };
  const names = factorNames(fit.k);
  const head: FactorsHead = { output: "factors", columns: names, n_components: fit.k, rotation: fit.rotation };
  const { output, summary } = describeFit(space, fit, names);
  return {
    modelType: "factors",
    featurizer: space.featurizer,
    onnx: exportFactorsOnnx(scorer),
    head: { ...head },
    metrics: {},
    output,
    summary,
    scorer,
  };
}

function resolveParams(params: FactorsParams): { n_components: number | null; rotation: Rotation; seed: number } {
  const p = { n_components: params.n_components ?? null, rotation: params.rotation ?? "none", seed: params.seed ?? 0 };
  const check = (name: string, v: unknown, ok: boolean) => {
    if (!ok) throw new MlInputError(`invalid parameter ${name}: ${String(v)}`);
  };
  const k = p.n_components;
  check("n_components", k, k === null || (Number.isInteger(k) && k >= 1));
  check("rotation", p.rotation, (FACTOR_ROTATIONS as readonly string[]).includes(p.rotation));
  check("seed", p.seed, Number.isInteger(p.seed));
  return p;
}

/** The standardized rows of `m`, standardized a chunk at a time on demand. */
function chunkedSource(space: StandardSpace, m: FeatureMatrix): ChunkSource {
  const rowsPer = Math.max(1, Math.floor(CHUNK_VALUES / Math.max(1, space.D)));
  const F = m.numFeatures;
  return {
    numRows: m.numRows,
    D: space.D,
    numChunks: Math.max(1, Math.ceil(m.numRows / rowsPer)),
    chunk(c) {
      const start = c * rowsPer;
      const end = Math.min(m.numRows, start + rowsPer);
      return standardize(space, { data: m.data.subarray(start * F, end * F), numRows: end - start, numFeatures: F });
    },
  };
}

function factorNames(k: number): string[] {
  return Array.from({ length: k }, (_, j) => `factor_${j + 1}`);
}

function exportFactorsOnnx(scorer: FactorsScorer): Uint8Array {
  const { space, fit } = scorer;
  const { D, k } = fit;
  const g = new GraphBuilder();
  const x = addFeaturesInput(g, space.featurizer.features.length);
  const centered = g.op("Sub", [addStandardizeStage(g, space, x), g.double(fit.mean)]);
  // componentsᵀ [D x k]
  const wt = new Float64Array(D * k);
  for (let j = 0; j < k; j++) for (let d = 0; d < D; d++) wt[d * k + j] = fit.components[j * D + d];
  const scores = g.op("MatMul", [centered, g.double(wt, [D, k])]);
  g.output(scores, "factors", DataType.DOUBLE, ["N", k], "factor scores factor_1..factor_k");
  return g.finish({
    name: "factors",
    docString: `principal components of the standardized features (${k} factors, rotation ${fit.rotation})`,
    metadata: { model_type: "factors", n_components: String(k), rotation: fit.rotation },
  });
}

interface FeatureLoading {
  column: string;
  loading: number;
}

/** Job output (compact) and model summary (with every loading and weight). */
function describeFit(space: StandardSpace, fit: PcaFit, names: string[]): { output: Record<string, unknown>; summary: Record<string, unknown> } {
  const { D, k } = fit;
  const ratio = Array.from(fit.explainedVariance, (v) => v / fit.totalVariance);
  let acc = 0;
  const cumulative = ratio.map((r) => (acc += r));
  const rowOf = (m: Float64Array, j: number) => m.subarray(j * D, (j + 1) * D);
  const top = names.map((factor, j) => ({ factor, features: topLoadings(space.columnNames, rowOf(fit.loadings, j)) }));
  const rule =
    fit.rule === "requested"
      ? "requested (n_components)"
      : `auto: the fewest factors explaining at least ${AUTO_VARIANCE * 100}% of the variance, at most ${AUTO_MAX}`;
  const output = {
    n_components: k,
    n_components_rule: rule,
    rotation: fit.rotation,
    explained_variance: Array.from(fit.explainedVariance),
    explained_variance_ratio: ratio,
    cumulative_explained_variance_ratio: cumulative,
    top_features: top,
  };
  const byColumn = (v: Float64Array) => Object.fromEntries(space.columnNames.map((c, d) => [c, v[d]]));
  const summary = {
    ...output,
    solver: fit.solver === "exact" ? "exact eigen-decomposition of the covariance" : "randomized (seeded subspace iteration)",
    rows: fit.numRows,
    standardized_columns: D,
    total_variance: fit.totalVariance,
    loadings_definition:
      "loading = covariance of the standardized column with the factor scaled to unit variance (≈ correlation for numeric columns); weight = coefficient of the column in the factor score: score = Σ weight·(standardized value − column_means)",
    column_means: byColumn(fit.mean),
    factors: names.map((name, j) => ({
      name,
      explained_variance: fit.explainedVariance[j],
      explained_variance_ratio: ratio[j],
      cumulative_explained_variance_ratio: cumulative[j],
      loadings: byColumn(rowOf(fit.loadings, j)),
      weights: byColumn(rowOf(fit.components, j)),
      top_features: top[j].features,
    })),
  };
  return { output, summary };
}

/** The TOP_FEATURES largest |loading|s, largest first (ties: column order). */
function topLoadings(columns: string[], loading: Float64Array): FeatureLoading[] {
  return columns
    .map((column, d) => ({ column, loading: loading[d] }))
    .sort((a, b) => Math.abs(b.loading) - Math.abs(a.loading))
    .slice(0, TOP_FEATURES);
}
