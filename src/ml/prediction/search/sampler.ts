/**
 * Where the search tries next: a tree-structured Parzen estimator (Bergstra et al., 2011, the
 * sampler Optuna uses by default), kept small. The first points are spread at random; after
 * them, the points tried so far are split into the good (the best quarter by loss) and the rest,
 * each set becomes a density (a Gaussian kernel per point, per dimension), and of a few candidates
 * drawn around good points the one with the highest good/rest density ratio is tried.
 * Deterministic for a seed.
 */
import { Rng } from "../../random";

/** Random points before the densities take over. */
const STARTUP_POINTS = 8;
/** Candidates drawn per proposal. */
const CANDIDATES = 24;
/** Share of the points tried that count as good. */
const GOOD_SHARE = 0.25;

export class ParzenSampler {
  private readonly rng: Rng;
  private readonly points: Float64Array[] = [];
  private readonly losses: number[] = [];

  constructor(
    private readonly dims: number,
    seed: number,
  ) {
    this.rng = new Rng(seed ^ 0x7e57);
  }

  /** The next unit point to try. */
  propose(): Float64Array {
    if (this.points.length < STARTUP_POINTS) return this.uniform();
    const order = this.losses.map((_, i) => i).sort((a, b) => this.losses[a] - this.losses[b]);
    const nGood = Math.max(1, Math.ceil(GOOD_SHARE * order.length));
    const good = order.slice(0, nGood).map((i) => this.points[i]);
    const rest = order.slice(nGood).map((i) => this.points[i]);
    const hGood = bandwidth(good.length, this.dims);
    const hRest = bandwidth(rest.length, this.dims);
    let best = good[0];
    let bestRatio = -Infinity;
    for (let c = 0; c < CANDIDATES; c++) {
      const around = good[this.rng.int(good.length)];
      const x = Float64Array.from(around, (v) => clamp01(v + hGood * this.gaussian()));
      const ratio = logDensity(x, good, hGood) - logDensity(x, rest, hRest);
      if (ratio > bestRatio) {
        bestRatio = ratio;
        best = x;
      }
    }
    return best;
  }

  /** The loss the point scored (lower is better; a failed trial: Infinity). */
  tell(point: Float64Array, loss: number): void {
    this.points.push(point);
    this.losses.push(Number.isFinite(loss) ? loss : Number.MAX_VALUE);
  }

  private uniform(): Float64Array {
    return Float64Array.from({ length: this.dims }, () => this.rng.next());
  }

  private gaussian(): number {
    // Box-Muller
    const u = Math.max(1e-12, this.rng.next());
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.rng.next());
  }
}

/** Kernel width per dimension: Scott's rule on the unit interval, never narrower than 0.05. */
function bandwidth(n: number, dims: number): number {
  return Math.max(0.05, 0.3 * Math.max(1, n) ** (-1 / (dims + 4)));
}

/** Log of the mean of the points' Gaussian kernels at x (a flat density without points). */
function logDensity(x: Float64Array, points: Float64Array[], h: number): number {
  if (points.length === 0) return 0;
  const logs = points.map((p) => {
    let s = 0;
    for (let d = 0; d < x.length; d++) {
      const z = (x[d] - p[d]) / h;
      s -= 0.5 * z * z;
    }
    return s;
  });
  const max = Math.max(...logs);
  let sum = 0;
  for (const l of logs) sum += Math.exp(l - max);
  return max + Math.log(sum / points.length);
}

function clamp01(v: number): number {
  return Math.min(1, Math.max(0, v));
}
