/**
 * The cells of an index in ascending distance from a query, produced lazily: a binary min-heap
 * over (distance, cell), built in O(nlist) and popped in O(log nlist). Exact search usually stops
 * after a few dozen cells (see ./search), so sorting all of them per query would cost more than
 * the search itself.
 */
export class CellQueue {
  private readonly key: Float64Array;
  private readonly cell: Int32Array;
  private size = 0;

  constructor(capacity: number) {
    this.key = new Float64Array(capacity);
    this.cell = new Int32Array(capacity);
  }

  /** Loads every cell l with distance dist[l]. */
  fill(dist: Float64Array, n: number): void {
    this.key.set(dist.subarray(0, n));
    for (let l = 0; l < n; l++) this.cell[l] = l;
    this.size = n;
    for (let i = (n >> 1) - 1; i >= 0; i--) this.siftDown(i);
  }

  get empty(): boolean {
    return this.size === 0;
  }

  /** Distance of the next cell (Infinity when empty). */
  peek(): number {
    return this.size > 0 ? this.key[0] : Infinity;
  }

  /** The nearest remaining cell (lower index at equal distances); call only when not empty. */
  pop(): number {
    const top = this.cell[0];
    const last = --this.size;
    this.key[0] = this.key[last];
    this.cell[0] = this.cell[last];
    this.siftDown(0);
    return top;
  }

  private siftDown(i: number): void {
    const { key, cell } = this;
    const n = this.size;
    const k = key[i];
    const c = cell[i];
    for (;;) {
      let m = 2 * i + 1;
      if (m >= n) break;
      if (m + 1 < n && before(key[m + 1], cell[m + 1], key[m], cell[m])) m++;
      if (!before(key[m], cell[m], k, c)) break;
      key[i] = key[m];
      cell[i] = cell[m];
      i = m;
    }
    key[i] = k;
    cell[i] = c;
  }
}

function before(k1: number, c1: number, k2: number, c2: number): boolean {
  return k1 < k2 || (k1 === k2 && c1 < c2);
}
