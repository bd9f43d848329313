/**
 * Adjusted Rand index (Hubert & Arabie 1985) between two labelings of the same rows: 1 for the
 * same partition (whatever the label names), about 0 for unrelated ones. For the benchmark and
 * the tests: how well clusters recover known classes.
 */
export function adjustedRandIndex(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const n = a.length;
  if (b.length !== n) throw new Error("labelings of different lengths");
  const ia = new Map<number, number>();
  const ib = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    if (!ia.has(a[i])) ia.set(a[i], ia.size);
    if (!ib.has(b[i])) ib.set(b[i], ib.size);
  }
  const ka = ia.size;
  const kb = ib.size;
  const table = new Float64Array(ka * kb);
  const rows = new Float64Array(ka);
  const cols = new Float64Array(kb);
  for (let i = 0; i < n; i++) {
    const r = ia.get(a[i])!;
    const c = ib.get(b[i])!;
    table[r * kb + c]++;
    rows[r]++;
    cols[c]++;
  }
  const pairs = (x: number) => (x * (x - 1)) / 2;
  let index = 0;
  for (const v of table) index += pairs(v);
  let sumA = 0;
  for (const v of rows) sumA += pairs(v);
  let sumB = 0;
  for (const v of cols) sumB += pairs(v);
  const expected = (sumA * sumB) / pairs(n);
  const max = (sumA + sumB) / 2;
  // both labelings put every row in one cluster, or every row alone: identical partitions
  if (max === expected) return 1;
  return (index - expected) / (max - expected);
}
