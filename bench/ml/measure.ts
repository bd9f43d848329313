/** Timing helpers and the test metrics (computed here, independently of the engine's). */
import { performance } from "node:perf_hooks";

/** Fastest of up to `n` passes; stops early once `budgetS` seconds have been spent. */
export async function bestOf<T>(n: number, fn: () => T | Promise<T>, budgetS = Infinity) {
  let best = Infinity,
    spent = 0,
    passes = 0,
    value!: T;
  while (passes < n && (passes === 0 || spent < budgetS)) {
    const t = performance.now();
    value = await fn();
    const s = (performance.now() - t) / 1000;
    best = Math.min(best, s);
    spent += s;
    passes++;
  }
  return { seconds: best, passes, value };
}

/** Median seconds of `n` calls, after `n / 10` warm-up calls. */
export async function medianCall(fn: () => unknown, n: number): Promise<number> {
  for (let i = 0; i < Math.ceil(n / 10); i++) await fn();
  const ts = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    ts[i] = performance.now() - t;
  }
  ts.sort();
  return ts[n >> 1] / 1000;
}

export function r2(y: ArrayLike<number>, p: ArrayLike<number>): number {
  let mean = 0;
  for (let i = 0; i < y.length; i++) mean += y[i];
  mean /= y.length;
  let ssr = 0,
    sst = 0;
  for (let i = 0; i < y.length; i++) {
    ssr += (y[i] - p[i]) ** 2;
    sst += (y[i] - mean) ** 2;
  }
  return 1 - ssr / sst;
}

/** probs: row-major n × k class probabilities; y: class indices. */
export function classScores(y: Int32Array, probs: ArrayLike<number>, k: number) {
  let correct = 0,
    ll = 0;
  for (let i = 0; i < y.length; i++) {
    let arg = 0;
    for (let c = 1; c < k; c++) if (probs[i * k + c] > probs[i * k + arg]) arg = c;
    if (arg === y[i]) correct++;
    const p = Math.min(Math.max(probs[i * k + y[i]], 1e-15), 1 - 1e-15);
    ll -= Math.log(p);
  }
  const out: { accuracy: number; logloss: number; auc?: number } = { accuracy: correct / y.length, logloss: ll / y.length };
  if (k === 2)
    out.auc = auc(
      y,
      Float64Array.from(y, (_, i) => probs[i * 2 + 1]),
    );
  return out;
}

/** ROC AUC with ties counted half (Mann–Whitney). */
export function auc(y: Int32Array, score: Float64Array): number {
  const order = Array.from(score.keys()).sort((a, b) => score[a] - score[b]);
  let rankSumPos = 0,
    pos = 0;
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j + 1 < order.length && score[order[j + 1]] === score[order[i]]) j++;
    const rank = (i + j) / 2 + 1;
    for (let t = i; t <= j; t++)
      if (y[order[t]] === 1) {
        rankSumPos += rank;
        pos++;
      }
    i = j + 1;
  }
  const neg = y.length - pos;
  return (rankSumPos - (pos * (pos + 1)) / 2) / (pos * neg);
}
