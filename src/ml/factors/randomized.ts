/**
 * Top eigenpairs of the covariance of a wide source without forming it (Halko, Martinsson &
 * Tropp 2011, "Finding structure with randomness"): a seeded Gaussian block Y [D x l] (l = the
 * wanted count plus oversampling), `powerIterations` rounds of Y ← orth(C·Y), then Rayleigh-Ritz:
 * the l x l matrix T = Yᵀ C Y is decomposed exactly and its eigenvectors mapped back (Y·w).
 *
 * This is randomized SVD run on the row space: each C·Y is one streamed pass over the data
 * (./passes), so memory stays at a few [D x l] blocks whatever the row count, and the power
 * iterations sharpen the subspace as the singular-value gaps allow. Same seed, same result.
 */
import { Rng } from "../random";
import { symmetricEigen } from "./eigen";
import { type ChunkSource, covarianceTimes } from "./passes";

export interface RandomizedOptions {
  seed: number;
  /** Power iterations (default DEFAULT_POWER_ITERATIONS). */
  powerIterations?: number;
}

/**
 * scikit-learn's 'auto' count for few components is 7, but its final projection (B = QᵀX on the
 * row side) adds about half an iteration that Rayleigh-Ritz on C does not: 8 here matches its
 * accuracy (bench/unsupervised/factors-RESULTS.md) for one more pass.
 */
export const DEFAULT_POWER_ITERATIONS = 8;

/** Passes over the data `randomizedEigen` makes (power iterations + the Rayleigh-Ritz pass). */
export function randomizedPasses(opts: RandomizedOptions): number {
  return (opts.powerIterations ?? DEFAULT_POWER_ITERATIONS) + 1;
}

/**
 * The l leading eigenpairs of the source's covariance (centred on `mean`): values descending,
 * vectors as rows of a row-major [l x D] matrix. Yields once per chunk of every pass.
 */
export function* randomizedEigen(
  src: ChunkSource,
  mean: Float64Array,
  l: number,
  opts: RandomizedOptions,
): Generator<void, { values: Float64Array; vectors: Float64Array }, void> {
  const D = src.D;
  const rng = new Rng(opts.seed);
  const gauss = gaussian(rng);
  let y: Float64Array = new Float64Array(D * l);
  for (let i = 0; i < y.length; i++) y[i] = gauss();
  orthonormalizeColumns(y, D, l, gauss);
  const iterations = opts.powerIterations ?? DEFAULT_POWER_ITERATIONS;
  for (let it = 0; it < iterations; it++) {
    y = yield* covarianceTimes(src, mean, y, l);
    orthonormalizeColumns(y, D, l, gauss);
  }
  const cy = yield* covarianceTimes(src, mean, y, l);
  // T = Yᵀ (C Y), symmetrized against rounding
  const t = new Float64Array(l * l);
  for (let a = 0; a < l; a++) {
    for (let b = a; b < l; b++) {
      let s = 0;
      let s2 = 0;
      for (let d = 0; d < D; d++) {
        s += y[d * l + a] * cy[d * l + b];
        s2 += y[d * l + b] * cy[d * l + a];
      }
      t[a * l + b] = t[b * l + a] = (s + s2) / 2;
    }
  }
  const small = symmetricEigen(t, l);
  const vectors = new Float64Array(l * D);
  for (let i = 0; i < l; i++) {
    for (let d = 0; d < D; d++) {
      let s = 0;
      for (let j = 0; j < l; j++) s += y[d * l + j] * small.vectors[i * l + j];
      vectors[i * D + d] = s;
    }
  }
  return { values: small.values, vectors };
}

/** Standard normal draws (Box-Muller) from a seeded Rng. */
function gaussian(rng: Rng): () => number {
  let spare: number | null = null;
  return () => {
    if (spare !== null) {
      const s = spare;
      spare = null;
      return s;
    }
    const u = 1 - rng.next(); // (0, 1]: log stays finite
    const r = Math.sqrt(-2 * Math.log(u));
    const angle = 2 * Math.PI * rng.next();
    spare = r * Math.sin(angle);
    return r * Math.cos(angle);
  };
}

/**
 * Modified Gram-Schmidt on the columns of row-major [D x l], run twice ("twice is enough") for
 * orthogonality to rounding. A column that vanishes (the data has lower rank than l) is replaced
 * by a fresh random direction, so the block always stays a full orthonormal basis.
 */
function orthonormalizeColumns(y: Float64Array, D: number, l: number, gauss: () => number): void {
  for (let j = 0; j < l; j++) {
    for (let attempt = 0; ; attempt++) {
      let before = 0;
      for (let d = 0; d < D; d++) before += y[d * l + j] * y[d * l + j];
      for (let pass = 0; pass < 2; pass++) {
        for (let i = 0; i < j; i++) {
          let dot = 0;
          for (let d = 0; d < D; d++) dot += y[d * l + i] * y[d * l + j];
          for (let d = 0; d < D; d++) y[d * l + j] -= dot * y[d * l + i];
        }
      }
      let norm = 0;
      for (let d = 0; d < D; d++) norm += y[d * l + j] * y[d * l + j];
      if (norm > 1e-20 * before && norm > 0) {
        const inv = 1 / Math.sqrt(norm);
        for (let d = 0; d < D; d++) y[d * l + j] *= inv;
        break;
      }
      if (attempt > 10) throw new Error("randomized eigen: cannot extend the orthonormal basis");
      for (let d = 0; d < D; d++) y[d * l + j] = gauss();
    }
  }
}
