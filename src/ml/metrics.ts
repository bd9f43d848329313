/**
 * Evaluation metrics. Never NaN or infinite (all return through finiteOrNull): a metric that is
 * undefined for the data (r2 of a constant target, AUC with one class present, anything on zero
 * rows, a NaN probability) is null.
 *
 * Classification inputs: `y` = true class index per row (0..K-1); `prob` = probability of the
 * positive class per row (binary, K = 2) or row-major [rows x K] probabilities (multiclass).
 */

export type MetricValue = number | null;

/** Every metric returns through this, so none can leak NaN or ±Infinity (a NaN probability, an
 * overflowing sum...) whatever its own checks miss. */
function finiteOrNull(v: number | null): MetricValue {
  return v !== null && Number.isFinite(v) ? v : null;
}

/** @internal exported for its unit tests (test/ml/metrics.test.ts and others) */
export function accuracy(y: ArrayLike<number>, pred: ArrayLike<number>): MetricValue {
  const n = y.length;
  if (n === 0) return null;
  let ok = 0;
  for (let i = 0; i < n; i++) if (y[i] === pred[i]) ok++;
  return finiteOrNull(ok / n);
}

/** @internal exported for its unit tests (test/ml/metrics.test.ts and others) */
export function r2(y: ArrayLike<number>, pred: ArrayLike<number>): MetricValue {
  const n = y.length;
  if (n === 0) return null;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += y[i];
  mean /= n;
  let ssTot = 0;
  let ssRes = 0;
  for (let i = 0; i < n; i++) {
    ssTot += (y[i] - mean) ** 2;
    ssRes += (y[i] - pred[i]) ** 2;
  }
  if (!(ssTot > 0)) return null;
  return finiteOrNull(1 - ssRes / ssTot);
}

/** @internal exported for its unit tests (test/ml/metrics.test.ts and others) */
export function rmse(y: ArrayLike<number>, pred: ArrayLike<number>): MetricValue {
  const n = y.length;
  if (n === 0) return null;
  let s = 0;
  for (let i = 0; i < n; i++) s += (y[i] - pred[i]) ** 2;
  return finiteOrNull(Math.sqrt(s / n));
}

/** @internal exported for its unit tests (test/ml/metrics.test.ts and others) */
export function mae(y: ArrayLike<number>, pred: ArrayLike<number>): MetricValue {
  const n = y.length;
  if (n === 0) return null;
  let s = 0;
  for (let i = 0; i < n; i++) s += Math.abs(y[i] - pred[i]);
  return finiteOrNull(s / n);
}

/**
 * Probabilities are clipped to [1e-15, 1 - 1e-15]; a NaN probability makes the loss null.
 * @internal exported for its unit tests (test/ml/metrics.test.ts and others)
 */
export function logLoss(y: ArrayLike<number>, prob: ArrayLike<number>, numClasses: number): MetricValue {
  const n = y.length;
  if (n === 0) return null;
  const clip = (p: number) => Math.min(1 - 1e-15, Math.max(1e-15, p));
  let s = 0;
  if (numClasses === 2 && prob.length === n) {
    for (let i = 0; i < n; i++) s -= Math.log(clip(y[i] === 1 ? prob[i] : 1 - prob[i]));
  } else {
    for (let i = 0; i < n; i++) s -= Math.log(clip(prob[i * numClasses + y[i]]));
  }
  return finiteOrNull(s / n);
}

/** Binary ROC-AUC of scores against 0/1 labels (ties get half credit). Null when one class only,
 * or when a score is NaN (its rank is unknown, and a NaN comparator leaves the sort arbitrary). */
function rocAucBinary(y: ArrayLike<number>, score: ArrayLike<number>): MetricValue {
  const n = y.length;
  for (let i = 0; i < n; i++) if (score[i] !== score[i]) return null;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => score[a] - score[b]);
  let pos = 0;
  for (let i = 0; i < n; i++) if (y[i] === 1) pos++;
  const neg = n - pos;
  if (pos === 0 || neg === 0) return null;
  // rank sum of positives with average ranks for ties
  let rankSum = 0;
  for (let i = 0; i < n; ) {
    let j = i + 1;
    while (j < n && score[order[j]] === score[order[i]]) j++;
    const avg = (i + j + 1) / 2; // 1-based average rank
    for (let t = i; t < j; t++) if (y[order[t]] === 1) rankSum += avg;
    i = j;
  }
  return finiteOrNull((rankSum - (pos * (pos + 1)) / 2) / (pos * neg));
}

/**
 * ROC-AUC: binary, or macro one-vs-rest for multiclass (average over the classes that have both
 * positives and negatives). Null when no class qualifies.
 * @internal exported for its unit tests (test/ml/metrics.test.ts and others)
 */
export function rocAuc(y: ArrayLike<number>, prob: ArrayLike<number>, numClasses: number): MetricValue {
  const n = y.length;
  if (numClasses === 2 && prob.length === n) return rocAucBinary(y, prob);
  // one NaN probability makes the whole AUC null, rather than silently dropping its class
  for (let i = 0; i < n * numClasses; i++) if (prob[i] !== prob[i]) return null;
  let sum = 0;
  let count = 0;
  const yk = new Uint8Array(n);
  const sk = new Float64Array(n);
  for (let k = 0; k < numClasses; k++) {
    for (let i = 0; i < n; i++) {
      yk[i] = y[i] === k ? 1 : 0;
      sk[i] = prob[i * numClasses + k];
    }
    const a = rocAucBinary(yk, sk);
    if (a !== null) {
      sum += a;
      count++;
    }
  }
  return count ? finiteOrNull(sum / count) : null;
}

/**
 * F1: binary = F1 of class 1; multiclass = macro average over classes present in y or pred.
 * A class with no true and no predicted positives is skipped; 0 when precision + recall = 0.
 * @internal exported for its unit test (test/ml/metrics.test.ts)
 */
export function f1(y: ArrayLike<number>, pred: ArrayLike<number>, numClasses: number): MetricValue {
  const n = y.length;
  if (n === 0) return null;
  const tp = new Float64Array(numClasses);
  const fp = new Float64Array(numClasses);
  const fn = new Float64Array(numClasses);
  for (let i = 0; i < n; i++) {
    if (y[i] === pred[i]) tp[y[i]]++;
    else {
      fp[pred[i]]++;
      fn[y[i]]++;
    }
  }
  const f1Of = (k: number) => (tp[k] === 0 ? 0 : (2 * tp[k]) / (2 * tp[k] + fp[k] + fn[k]));
  if (numClasses === 2) return finiteOrNull(f1Of(1));
  let s = 0;
  let c = 0;
  for (let k = 0; k < numClasses; k++) {
    if (tp[k] + fp[k] + fn[k] === 0) continue;
    s += f1Of(k);
    c++;
  }
  return c ? finiteOrNull(s / c) : null;
}

export interface ClassificationMetrics {
  accuracy: MetricValue;
  log_loss: MetricValue;
  roc_auc: MetricValue;
  f1: MetricValue;
}

export interface RegressionMetrics {
  r2: MetricValue;
  rmse: MetricValue;
  mae: MetricValue;
}

/** `prob`: binary = P(class 1) per row; multiclass = row-major [rows x K]. */
export function classificationMetrics(y: ArrayLike<number>, prob: ArrayLike<number>, numClasses: number): ClassificationMetrics {
  const n = y.length;
  const pred = new Int32Array(n);
  if (numClasses === 2 && prob.length === n) {
    for (let i = 0; i < n; i++) pred[i] = prob[i] >= 0.5 ? 1 : 0;
  } else {
    for (let i = 0; i < n; i++) {
      let best = 0;
      for (let k = 1; k < numClasses; k++) if (prob[i * numClasses + k] > prob[i * numClasses + best]) best = k;
      pred[i] = best;
    }
  }
  return {
    accuracy: accuracy(y, pred),
    log_loss: logLoss(y, prob, numClasses),
    roc_auc: rocAuc(y, prob, numClasses),
    f1: f1(y, pred, numClasses),
  };
}

export function regressionMetrics(y: ArrayLike<number>, pred: ArrayLike<number>): RegressionMetrics {
  return { r2: r2(y, pred), rmse: rmse(y, pred), mae: mae(y, pred) };
}
