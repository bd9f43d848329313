import { isAscii } from "./ascii";
import { unfinishedAtEnd } from "./utf8";

/**
 * The bytes of the file not parsed yet, in one growing buffer: the unfinished last record of the
 * previous piece followed by the chunks that arrived since. A piece of ASCII is parsed straight
 * from the buffer; any other piece as text (text()), which reuses what validating the chunks
 * decoded (Utf8Stream.check), so no chunk is decoded twice. Each chunk is copied once (a
 * memcpy), and the carried tail moves to the front after each parse.
 */
export class PendingBytes {
  private buffer = new Uint8Array(1 << 16);
  /** Bytes held: buffer[0, used). */
  used = 0;
  /** File offset of buffer[0]. */
  offset = 0;
  /** Whether every held byte is below 0x80. */
  ascii = true;
  /** The held bytes in parts (the carried tail, then one per chunk): each part's text as decoded,
   * or null for ASCII bytes not decoded (decoded here when needed), and its length in bytes. A
   * character cut at the end of a part is in the next part's text (a streaming decoder's). */
  private texts: Array<string | null> = [];
  private lengths: number[] = [];
  private readonly decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

  /** `text`: the chunk's text as validating it decoded it, null if it is ASCII and was not. */
  append(chunk: Uint8Array, ascii: boolean, text: string | null): void {
    if (this.used + chunk.length > this.buffer.length) {
      const next = new Uint8Array(Math.max(2 * this.buffer.length, this.used + chunk.length));
      next.set(this.buffer.subarray(0, this.used));
      this.buffer = next;
    }
    this.buffer.set(chunk, this.used);
    this.used += chunk.length;
    if (!ascii) this.ascii = false;
    this.texts.push(text);
    this.lengths.push(chunk.length);
  }

  /** The held bytes (a view: valid until the next append or consume). */
  view(): Uint8Array {
    return this.buffer.subarray(0, this.used);
  }

  /** The held bytes' complete characters as text (all of them when final: the input was checked
   * to end on a whole character), and how many bytes that is. */
  text(final: boolean): { text: string; bytes: number } {
    const parts: string[] = [];
    let at = 0;
    for (let k = 0; k < this.texts.length; k++) {
      parts.push(this.texts[k] ?? this.decoder.decode(this.buffer.subarray(at, at + this.lengths[k])));
      at += this.lengths[k];
    }
    const held = this.view();
    const bytes = final ? held.length : held.length - unfinishedAtEnd(held.subarray(Math.max(0, held.length - 3)));
    return { text: parts.length === 1 ? parts[0] : parts.join(""), bytes };
  }

  /** Drops the first `n` held bytes (parsed); `rest`: the text of the bytes kept, when known
   * (without a character cut at their end), else null: they are ASCII. */
  consume(n: number, rest: string | null): void {
    this.buffer.copyWithin(0, n, this.used);
    this.used -= n;
    this.offset += n;
    this.texts = this.used > 0 ? [rest] : [];
    this.lengths = this.used > 0 ? [this.used] : [];
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
