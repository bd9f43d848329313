/**
 * The two spaces of a set of rows with some columns hidden, as the neighbour score
 * (./neighbour-score) asks for them: the rows mapped with those featurizer features unknown, so a
 * held-out column cannot pull its own neighbours close.
 */
import type { FeatureMatrix } from "../featurize";
import type { SslEncoder } from "../ssl/encoder";
import { compileLayout } from "../ssl/layout";
import type { SpaceWithout } from "./neighbour-score";
import { embed, type StandardSpace, standardize } from "./space";

/** The pool's standardized features, the hidden features' dimensions zeroed (they add nothing to a distance). */
export function standardizedWithout(space: StandardSpace, pool: FeatureMatrix): SpaceWithout {
  const all = standardize(space, pool);
  const L = compileLayout(space.layout);
  return (hidden) => {
    const vectors = Float64Array.from(all);
    for (let i = 0; i < pool.numRows; i++) {
      for (const j of hidden) vectors.fill(0, i * L.D + L.offset[j], i * L.D + L.offset[j] + L.width[j]);
    }
    return { vectors, dims: L.D };
  };
}

/** The pool's embedding with the hidden features missing: the encoder masks them, as it does any missing value. */
export function embeddedWithout(encoder: SslEncoder, pool: FeatureMatrix): SpaceWithout {
  const F = pool.numFeatures;
  return (hidden) => {
    const data = Float32Array.from(pool.data);
    for (let i = 0; i < pool.numRows; i++) for (const j of hidden) data[i * F + j] = NaN;
    return { vectors: embed(encoder, { data, numRows: pool.numRows, numFeatures: F }), dims: encoder.embedding };
  };
}
