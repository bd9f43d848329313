/**
 * One column's cells of the piece being parsed, held back in file order (as spans of the piece's
 * text with their spanHash, or the unescaped string of a quoted field with doubled quotes, start
 * -1) so that the column's DictionaryBuilder can look them up together (pushBatch): in a large
 * index every look-up misses the cache, and a batch lets those misses overlap instead of each
 * cell waiting for its own between the other columns' work. Reused piece to piece.
 */
export class SpanBatch {
  count = 0;
  starts = new Int32Array(1024);
  ends = new Int32Array(1024);
  hashes = new Int32Array(1024);
  readonly strings: string[] = [];
  private spare = new Int32Array(0);

  push(start: number, end: number, hash: number): void {
    if (this.count === this.starts.length) this.grow();
    this.starts[this.count] = start;
    this.ends[this.count] = end;
    this.hashes[this.count++] = hash;
  }

  pushString(value: string): void {
    if (this.count === this.starts.length) this.grow();
    this.strings[this.count] = value;
    this.starts[this.count++] = -1;
  }

  /** An Int32Array of at least `count` ints, for the look-up's own use (DictionaryBuilder.pushBatch). */
  scratch(): Int32Array {
    if (this.spare.length < this.count) this.spare = new Int32Array(this.starts.length);
    return this.spare;
  }

  /** Forgets the cells (and the strings, which would keep their text alive). */
  clear(): void {
    this.count = 0;
    this.strings.length = 0;
  }

  private grow(): void {
    const size = this.starts.length * 2;
    const starts = new Int32Array(size);
    starts.set(this.starts);
    const ends = new Int32Array(size);
    ends.set(this.ends);
    const hashes = new Int32Array(size);
    hashes.set(this.hashes);
    this.starts = starts;
    this.ends = ends;
    this.hashes = hashes;
  }
}
