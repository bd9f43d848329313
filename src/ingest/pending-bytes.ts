import { isAscii } from "./ascii";

/**
 * The bytes of the file not parsed yet, in one growing buffer: the unfinished last record of the
 * previous piece followed by the chunks that arrived since. A piece is parsed straight from the
 * buffer (as bytes when it is ASCII, else decoded), so chunks are never decoded into strings of
 * their own and joined. Each chunk is copied once (a memcpy), and the carried tail moves to the
 * front after each parse.
 */
export class PendingBytes {
  private buffer = new Uint8Array(1 << 16);
  /** Bytes held: buffer[0, used). */
  used = 0;
  /** File offset of buffer[0]. */
  offset = 0;
  /** Whether every held byte is below 0x80. */
  ascii = true;

  append(chunk: Uint8Array, ascii: boolean): void {
    if (this.used + chunk.length > this.buffer.length) {
      const next = new Uint8Array(Math.max(2 * this.buffer.length, this.used + chunk.length));
      next.set(this.buffer.subarray(0, this.used));
      this.buffer = next;
    }
    this.buffer.set(chunk, this.used);
    this.used += chunk.length;
    if (!ascii) this.ascii = false;
  }

  /** The held bytes (a view: valid until the next append or consume). */
  view(): Uint8Array {
    return this.buffer.subarray(0, this.used);
  }

  /** Drops the first `n` held bytes (parsed, or a byte order mark). */
  consume(n: number): void {
    if (n === 0) return;
    this.buffer.copyWithin(0, n, this.used);
    this.used -= n;
    this.offset += n;
    if (!this.ascii) this.ascii = isAscii(this.view());
  }

  /** Line feeds among the held bytes (for a UTF-8 error's line). */
  lineFeeds(): number {
    let n = 0;
    const bytes = this.view();
    for (let i = bytes.indexOf(0x0a); i >= 0; i = bytes.indexOf(0x0a, i + 1)) n++;
    return n;
  }
}
