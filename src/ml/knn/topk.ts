/**
 * The k best (smallest squared distance) candidates of one query: a bounded max-heap whose root is
 * the current worst kept candidate, so a new candidate costs one comparison when it loses (most
 * of them) and O(log k) when it wins.
 *
 * Order is (distance, row) lexicographic: at equal distances the lower training row wins, which
 * makes the result independent of the order in which the index visits the rows.
 */
export class TopK {
  readonly k: number;
  size = 0;
  private readonly dist: Float64Array;
  private readonly row: Int32Array;

  constructor(k: number) {
    this.k = k;
    this.dist = new Float64Array(k);
    this.row = new Int32Array(k);
  }

  reset(): void {
    this.size = 0;
  }

  /** Squared distance a candidate must beat (Infinity until k candidates are kept). */
  get bound(): number {
    return this.size < this.k ? Infinity : this.dist[0];
  }

  /** Offers a candidate; keeps it when it is among the k best so far. */
  push(d: number, r: number): void {
    const dist = this.dist;
    const row = this.row;
    if (this.size < this.k) {
      // sift up from the new leaf
      let i = this.size++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!worse(d, r, dist[p], row[p])) break;
        dist[i] = dist[p];
        row[i] = row[p];
        i = p;
      }
      dist[i] = d;
      row[i] = r;
      return;
    }
    if (!worse(dist[0], row[0], d, r)) return;
    // replace the root and sift down
    const n = this.size;
    let i = 0;
    for (;;) {
      const a = 2 * i + 1;
      if (a >= n) break;
      const b = a + 1;
      const c = b < n && worse(dist[b], row[b], dist[a], row[a]) ? b : a;
      if (!worse(dist[c], row[c], d, r)) break;
      dist[i] = dist[c];
      row[i] = row[c];
      i = c;
    }
    dist[i] = d;
    row[i] = r;
  }

  /** The kept candidates, best first, into `rows` / `dists` (squared); returns how many. Empties the heap. */
  drain(rows: Int32Array, dists: Float64Array): number {
    const n = this.size;
    // pop the worst repeatedly: it fills the output from the end
    for (let out = n - 1; out >= 0; out--) {
      rows[out] = this.row[0];
      dists[out] = this.dist[0];
      const last = --this.size;
      const d = this.dist[last];
      const r = this.row[last];
      let i = 0;
      for (;;) {
        const a = 2 * i + 1;
        if (a >= last) break;
        const b = a + 1;
        const c = b < last && worse(this.dist[b], this.row[b], this.dist[a], this.row[a]) ? b : a;
        if (!worse(this.dist[c], this.row[c], d, r)) break;
        this.dist[i] = this.dist[c];
        this.row[i] = this.row[c];
        i = c;
      }
      this.dist[i] = d;
      this.row[i] = r;
    }
    return n;
  }
}

/** True when (d1, r1) ranks after (d2, r2). */
function worse(d1: number, r1: number, d2: number, r2: number): boolean {
  return d1 > d2 || (d1 === d2 && r1 > r2);
}
