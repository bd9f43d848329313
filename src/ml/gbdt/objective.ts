/**
 * Objectives: base score, gradients/hessians, loss. Scores are row-major [rows x K].
 * Losses: regression = RMSE, binary = mean log-loss, multiclass = mean multi-class log-loss.
 * Gradients for multiclass class k are stored at grad[k * n + i].
 * Optional per-row weights w (non-negative): the weighted base score, gradients and hessians
 * both × w (so a leaf value is the weighted Newton step), weighted-mean losses. Without weights
 * the unweighted loops run unchanged (bit-identical to before weights existed).
 */
import type { Objective } from "./model";

export function baseScore(objective: Objective, label: Float64Array, K: number, weight?: Float64Array): number[] {
  if (weight) return weightedBaseScore(objective, label, K, weight);
  const n = label.length;
  if (objective === "regression") {
    let s = 0;
    for (let i = 0; i < n; i++) s += label[i];
    return [Math.fround(n ? s / n : 0)];
  }
  if (objective === "binary") {
    let s = 0;
    for (let i = 0; i < n; i++) s += label[i];
    const p = Math.min(1 - 1e-6, Math.max(1e-6, n ? s / n : 0.5));
    return [Math.fround(Math.log(p / (1 - p)))];
  }
  const counts = new Float64Array(K);
  for (let i = 0; i < n; i++) counts[label[i]]++;
  const logs = Array.from(counts, (c) => Math.log(Math.max(c / Math.max(n, 1), 1e-6)));
  const mean = logs.reduce((a, b) => a + b, 0) / K;
  return logs.map((v) => Math.fround(v - mean));
}

/** The weights of the listed rows; each finite and >= 0, and some positive. */
export function rowWeights(weight: Float64Array, rows: Int32Array, what: string): Float64Array {
  const w = Float64Array.from(rows, (r) => weight[r]);
  let sum = 0;
  for (const v of w) {
    if (!(v >= 0 && v < Infinity)) throw new Error(`${what} row weights must be finite and >= 0 (got ${v})`);
    sum += v;
  }
  if (rows.length > 0 && !(sum > 0)) throw new Error(`${what} row weights are all 0`);
  return w;
}

function weightedBaseScore(objective: Objective, label: Float64Array, K: number, w: Float64Array): number[] {
  const n = label.length;
  let sw = 0;
  for (let i = 0; i < n; i++) sw += w[i];
  if (objective === "regression" || objective === "binary") {
    let s = 0;
    for (let i = 0; i < n; i++) s += w[i] * label[i];
    if (objective === "regression") return [Math.fround(sw > 0 ? s / sw : 0)];
    const p = Math.min(1 - 1e-6, Math.max(1e-6, sw > 0 ? s / sw : 0.5));
    return [Math.fround(Math.log(p / (1 - p)))];
  }
  const mass = new Float64Array(K);
  for (let i = 0; i < n; i++) mass[label[i]] += w[i];
  const logs = Array.from(mass, (c) => Math.log(Math.max(sw > 0 ? c / sw : 0, 1e-6)));
  const mean = logs.reduce((a, b) => a + b, 0) / K;
  return logs.map((v) => Math.fround(v - mean));
}

/**
 * Fill grad/hess for the current scores. (Regression hessians are all 1, or the weights, and are
 * not rewritten: the caller fills them once.)
 * The loss is computed apart, by `loss`, so that it can run on a sample of the rows: a log per
 * row per round costs as much as the gradients themselves.
 */
export function gradients(
  objective: Objective,
  scores: Float64Array,
  label: Float64Array,
  K: number,
  grad: Float64Array,
  hess: Float64Array,
  prob: Float64Array,
  weight?: Float64Array,
): void {
  const n = label.length;
  if (weight) {
    gradients(objective, scores, label, K, grad, hess, prob);
    const regression = objective === "regression";
    for (let k = 0; k < K; k++) {
      const off = k * n;
      for (let i = 0; i < n; i++) {
        grad[off + i] *= weight[i];
        if (!regression) hess[off + i] *= weight[i];
      }
    }
    return;
  }
  if (objective === "regression") {
    for (let i = 0; i < n; i++) grad[i] = scores[i] - label[i];
    return;
  }
  if (objective === "binary") {
    for (let i = 0; i < n; i++) {
      const s = scores[i];
      // one exp: e = exp(-|s|); p = sigmoid(s)
      const e = Math.exp(s > 0 ? -s : s);
      const inv = 1 / (1 + e);
      const p = s > 0 ? inv : e * inv;
      grad[i] = p - label[i];
      hess[i] = Math.max(p * (1 - p), 1e-16);
    }
    return;
  }
  const factor = K / (K - 1);
  for (let i = 0; i < n; i++) {
    const base = i * K;
    let max = -Infinity;
    for (let k = 0; k < K; k++) if (scores[base + k] > max) max = scores[base + k];
    let sum = 0;
    for (let k = 0; k < K; k++) {
      const e = Math.exp(scores[base + k] - max);
      prob[k] = e;
      sum += e;
    }
    const y = label[i];
    for (let k = 0; k < K; k++) {
      const pk = prob[k] / sum;
      const isY = k === y ? 1 : 0;
      grad[k * n + i] = pk - isY;
      hess[k * n + i] = Math.max(factor * pk * (1 - pk), 1e-16);
    }
  }
}

/** The loss at the given scores, over all rows or over the listed ones (a sample); weighted mean with `weight`. */
export function loss(objective: Objective, scores: Float64Array, label: Float64Array, K: number, rows?: Int32Array, weight?: Float64Array): number {
  if (weight) return weightedLoss(objective, scores, label, K, weight, rows);
  const n = rows ? rows.length : label.length;
  if (n === 0) return NaN;
  let acc = 0;
  if (objective === "regression") {
    for (let j = 0; j < n; j++) {
      const i = rows ? rows[j] : j;
      const d = scores[i] - label[i];
      acc += d * d;
    }
    return Math.sqrt(acc / n);
  }
  if (objective === "binary") {
    for (let j = 0; j < n; j++) {
      const i = rows ? rows[j] : j;
      const s = scores[i];
      acc += Math.max(s, 0) - label[i] * s + Math.log1p(Math.exp(-Math.abs(s)));
    }
    return acc / n;
  }
  for (let j = 0; j < n; j++) {
    const i = rows ? rows[j] : j;
    const base = i * K;
    let max = -Infinity;
    for (let k = 0; k < K; k++) if (scores[base + k] > max) max = scores[base + k];
    let sum = 0;
    for (let k = 0; k < K; k++) sum += Math.exp(scores[base + k] - max);
    acc += Math.log(sum) + max - scores[base + label[i]];
  }
  return acc / n;
}

function weightedLoss(objective: Objective, scores: Float64Array, label: Float64Array, K: number, w: Float64Array, rows?: Int32Array): number {
  const n = rows ? rows.length : label.length;
  let acc = 0;
  let sw = 0;
  for (let j = 0; j < n; j++) {
    const i = rows ? rows[j] : j;
    const wi = w[i];
    if (wi === 0) continue;
    sw += wi;
    let l: number;
    if (objective === "regression") l = (scores[i] - label[i]) ** 2;
    else if (objective === "binary") {
      const s = scores[i];
      l = Math.max(s, 0) - label[i] * s + Math.log1p(Math.exp(-Math.abs(s)));
    } else {
      const base = i * K;
      let max = -Infinity;
      for (let k = 0; k < K; k++) if (scores[base + k] > max) max = scores[base + k];
      let sum = 0;
      for (let k = 0; k < K; k++) sum += Math.exp(scores[base + k] - max);
      l = Math.log(sum) + max - scores[base + label[i]];
    }
    acc += wi * l;
  }
  if (sw === 0) return NaN;
  return objective === "regression" ? Math.sqrt(acc / sw) : acc / sw;
}

/** Raw scores to predictions in place: sigmoid (binary), softmax (multiclass), identity. */
export function transformScores(objective: Objective, raw: Float64Array, K: number): Float64Array {
  if (objective === "binary") {
    for (let i = 0; i < raw.length; i++) raw[i] = 1 / (1 + Math.exp(-raw[i]));
  } else if (objective === "multiclass") {
    for (let base = 0; base < raw.length; base += K) {
      let max = -Infinity;
      for (let k = 0; k < K; k++) if (raw[base + k] > max) max = raw[base + k];
      let sum = 0;
      for (let k = 0; k < K; k++) {
        const e = Math.exp(raw[base + k] - max);
        raw[base + k] = e;
        sum += e;
      }
      for (let k = 0; k < K; k++) raw[base + k] /= sum;
    }
  }
  return raw;
}
