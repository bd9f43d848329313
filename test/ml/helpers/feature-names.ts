import type { FeaturizerSpec } from "../../../src/ml/featurize";

/** The names of a featurizer's features, in the featurized matrix's column order. */
export function featureNames(spec: FeaturizerSpec): string[] {
  return spec.features.map((f) => f.name);
}
