/**
 * The spaces the non-prediction models work in, built from the dataset's shared representation:
 * - the standardized features: the encoder's layout (../ssl/layout) made dense — numeric
 *   features standardized and clipped to ±5 (missing = 0, the mean), categorical ones one-hot
 *   (missing = all 0) — D named columns;
 * - the embedding: the shared encoder's (or, for other dimensions or a subset of the columns,
 *   one trained for the model).
 * Each has its ONNX stage in ./onnx, equal to the engine to float64 rounding. The folder sits
 * below the models that work in these spaces (ml/unsupervised, ml/causal's graph input) and the
 * explanations that map rows into them (ml/explain), so none of those imports another for it.
 */
import { MlInputError } from "../errors";
import { applyFeaturizer, type FeatureMatrix, type FeaturizerSpec, requireFeatures, selectFeatures } from "../featurize";
import type { FitStep } from "../fit/contract";
import type { Frame } from "../frame";
import type { Representation } from "../representation/representation";
import { encodeRows64, type SslEncoder, trainEncoderSteps } from "../ssl/encoder";
import { compileLayout, readRow, type SslFeature } from "../ssl/layout";

export { addEmbeddingStage, addFeaturesInput, addReconstructionErrorStage, addStandardizeStage } from "./onnx";

export interface StandardSpace {
  /** The model's featurizer: the representation's, minus the columns outside input_columns. */
  featurizer: FeaturizerSpec;
  /** Per featurizer feature: its standardization, or its one-hot levels. */
  layout: SslFeature[];
  /** The D standardized columns: a numeric feature's name, "col=value" per one-hot level, "col=(other)". */
  columnNames: string[];
  D: number;
}

/** The standardized space of a model on `rep`; MlInputError when no usable feature remains. */
export function standardSpace(rep: Representation, inputColumns?: string[] | null): StandardSpace {
  const repLayout = rep.layout;
  if (!repLayout) {
    throw new MlInputError("the dataset has no usable feature column, or fewer than 2 rows: there is nothing to model");
  }
  const inputs = inputColumns ? new Set(inputColumns) : null;
  const featurizer = inputs ? selectFeatures(rep.featurizer, (src) => inputs.has(src), "not in input_columns") : rep.featurizer;
  requireFeatures(featurizer);
  const index = new Map(rep.featurizer.features.map((f, i) => [f.name, i]));
  const layout = featurizer.features.map((f) => repLayout[index.get(f.name)!]);
  const columnNames: string[] = [];
  featurizer.features.forEach((f, j) => {
    const l = layout[j];
    if (l.kind === "numeric") columnNames.push(f.name);
    else {
      for (const code of l.levels) columnNames.push(`${f.name}=${f.vocabulary?.[code] ?? code}`);
      if (l.other) columnNames.push(`${f.name}=(other)`);
    }
  });
  return { featurizer, layout, columnNames, D: columnNames.length };
}

/** Row-major [N x D]: the dense standardized features of a featurized matrix. */
export function standardize(space: StandardSpace, m: FeatureMatrix): Float64Array {
  const L = compileLayout(space.layout);
  if (m.numFeatures !== L.F) throw new Error(`matrix has ${m.numFeatures} features, the space ${L.F}`);
  const out = new Float64Array(m.numRows * L.D);
  const value = new Float64Array(L.F);
  const present = new Uint8Array(L.F);
  for (let i = 0; i < m.numRows; i++) {
    readRow(L, m.data, i, value, present, 0);
    const base = i * L.D;
    for (let j = 0; j < L.F; j++) {
      if (present[j] === 0) continue;
      if (L.categorical[j] === 1) out[base + L.offset[j] + value[j]] = 1;
      else out[base + L.offset[j]] = value[j];
    }
  }
  return out;
}

/**
 * The encoder of a model in `space`: the shared one when it reads exactly these features with
 * these dimensions (no steps), else one trained here on the model's features (ssl steps).
 */
export function* encoderFor(
  frame: Frame,
  rep: Representation,
  space: StandardSpace,
  opts: { dimensions?: number; seed?: number } = {},
): Generator<FitStep, SslEncoder, void> {
  const shared = rep.encoder;
  const sameFeatures = shared !== null && space.featurizer.features.length === rep.featurizer.features.length;
  if (shared && sameFeatures && (opts.dimensions === undefined || opts.dimensions === shared.embedding)) return shared;
  if (frame.rowCount < 2) throw new MlInputError("the dataset has fewer than 2 rows: there is nothing to embed");
  const m = applyFeaturizer(space.featurizer, frame);
  const steps = trainEncoderSteps(space.featurizer, m, { seed: opts.seed ?? 0, embedding: opts.dimensions });
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    yield { phase: "ssl", step: r.value.step, totalSteps: r.value.totalSteps, trainLoss: r.value.trainLoss, valLoss: r.value.valLoss };
  }
}

/** Embedding [N x E] of a featurized matrix (the encoder's featurizer), at float64. */
export function embed(encoder: SslEncoder, m: FeatureMatrix): Float64Array {
  return encodeRows64(encoder, m.data, m.numRows);
}
