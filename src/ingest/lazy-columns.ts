/**
 * Columns decoded when they are read: a frame whose arrays (a column's `values` or `codes`, a
 * boolean column's spellings) are widened from their stored form only when a consumer reads the
 * property, and held only until the next column is decoded. The stored form of a large table is a
 * fraction of its decoded one (the benchmark table of 13 columns: ≈ 22 bytes a row stored, 80
 * decoded), so a job that reads the table one column at a time holds the stored bytes and one
 * wide column instead of every wide column at once.
 *
 * Only for consumers that read column by column (profile, featurizer, binning: every pass over the
 * table in a prediction model's training): code that reads a cell of one column, then of another,
 * row after row, would decode a whole column per cell. Such consumers get an eager frame
 * (decodeFrame without `lazy`).
 */
export class LazyColumns {
  /** The decoded arrays held now, oldest first; each entry forgets its array when dropped. */
  private readonly held: Array<() => void> = [];
  /** @param keep arrays held at once: the one being read, and the one a consumer may still be finishing. */
  constructor(private readonly keep = 1) {}

  /**
   * Makes `prop` of `target` a property decoded by `decode` when read. A consumer that keeps the
   * array it read keeps it alive itself; the frame only lets go of its own reference.
   */
  define<T extends object>(target: object, prop: string, decode: () => T): void {
    let value: T | null = null;
    const forget = () => {
      value = null;
    };
    Object.defineProperty(target, prop, {
      enumerable: true,
      configurable: true,
      get: () => {
        if (value === null) {
          value = decode();
          this.held.push(forget);
          if (this.held.length > this.keep) this.held.shift()?.();
        }
        return value;
      },
      // a consumer that replaces the array owns the new one: a plain property from then on
      set: (v: T) => Object.defineProperty(target, prop, { value: v, writable: true, enumerable: true, configurable: true }),
    });
  }
}
