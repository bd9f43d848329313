/**
 * The engine's random numbers: a small deterministic PRNG (mulberry32), same seed, same sequence,
 * on every runtime. Every algorithm that samples, shuffles or seeds (gbdt, ssl, kmeans, knn,
 * iforest, factors, sampled Shapley values, the prediction split, causal cross-fitting) draws from
 * it, so it sits at ml's root, below them all, importing nothing.
 */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = (Math.floor(seed) ^ 0x9e3779b9) >>> 0;
  }
  /** Uniform in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  /** In-place Fisher-Yates shuffle. */
  shuffle(a: Int32Array): void {
    for (let i = a.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
  }
}
