/**
 * Strings made in a batch: ASCII values are collected (their bytes copied one after the other)
 * and decoded by one TextDecoder call, each value then a slice of the batch's text (in ASCII,
 * byte offsets are character offsets). A decode call per value cost ≈ 0.2–0.3 µs, as much as the
 * rest of a new ByteStrings value's handling; a page may hold 100 k new values.
 */
const utf8 = new TextDecoder();

export class AsciiBatch {
  private bytes = new Uint8Array(1 << 12);
  private used = 0;
  /** Per value added: where strings[] takes it, and where its bytes end in `bytes`. */
  private ids = new Int32Array(1 << 8);
  private ends = new Int32Array(1 << 8);
  private count = 0;

  /** Adds source[start, start + length), every byte below 0x80, to be strings[id] at flush. */
  add(id: number, source: Uint8Array, start: number, length: number): void {
    if (this.count === this.ids.length) {
      this.ids = grown(this.ids, new Int32Array(2 * this.ids.length));
      this.ends = grown(this.ends, new Int32Array(2 * this.ends.length));
    }
    if (this.used + length > this.bytes.length) this.bytes = grown(this.bytes, new Uint8Array(2 * (this.used + length)));
    const { bytes } = this;
    for (let k = 0; k < length; k++) bytes[this.used + k] = source[start + k];
    this.used += length;
    this.ids[this.count] = id;
    this.ends[this.count] = this.used;
    this.count++;
  }

  /** Sets strings[id] for each value added since the last flush. */
  flush(strings: string[]): void {
    const { ids, ends, count } = this;
    if (count === 0) return;
    const text = utf8.decode(this.bytes.subarray(0, this.used));
    this.count = 0;
    this.used = 0;
    // the loop last: see row-dictionary.ts (code after a long loop that has not run yet is
    // compiled without type feedback, and its first run throws the compiled loop away)
    for (let k = 0, from = 0; k < count; from = ends[k++]) strings[ids[k]] = text.slice(from, ends[k]);
  }
}

function grown<T extends Int32Array | Uint8Array>(from: T, to: T): T {
  to.set(from);
  return to;
}
