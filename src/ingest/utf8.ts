import { IngestError } from "./errors";

/**
 * Incremental strict UTF-8 validation (check): the CSV reader keeps the bytes and decodes only
 * the pieces that are not ASCII itself. TextDecoder with `fatal` rejects bad bytes but does not
 * say where; on failure we locate the first bad byte ourselves so the message can point at it.
 * Also counts line feeds in the raw bytes, only to name the line of a bad byte, unless the
 * reader can say later how many the decoded text held (countLinesWith): that count costs ≈ 5%
 * of a large read and is needed only when a message is built.
 */
export class Utf8Stream {
  private readonly decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
  private bytesBefore = 0;
  private countedLines = 0;
  private lineFeeds: (() => number) | undefined;
  /** The stream's last (up to 3) bytes so far: a bad sequence may have started there, and an
   * unfinished character there is held by the decoder (see decodedBytes). */
  private tail: Uint8Array = new Uint8Array(0);

  /**
   * Validates the next chunk as decode() does (the same errors) and returns its text, or null
   * when it did not need decoding: `ascii` says every byte of the chunk is below 0x80 (isAscii),
   * and unless a character begun in the previous chunk is unfinished (which an ASCII byte would
   * make invalid) or nothing was decoded yet (a BOM is only dropped at the start), the bytes are
   * their text. The reader parses such a piece as bytes, without ever making the string.
   */
  check(chunk: Uint8Array, ascii: boolean): string | null {
    if (!ascii || this.bytesBefore === 0 || unfinishedAtEnd(this.tail) !== 0) return this.decode(chunk);
    this.bytesBefore += chunk.length;
    if (this.lineFeeds === undefined) this.countedLines += countByte(chunk, 0x0a, chunk.length);
    this.tail = lastBytes(this.tail, chunk);
    return null;
  }

  private decode(chunk: Uint8Array): string {
    let text: string;
    try {
      text = this.decoder.decode(chunk, { stream: true });
    } catch {
      throw this.errorIn(chunk);
    }
    this.bytesBefore += chunk.length;
    if (this.lineFeeds === undefined) this.countedLines += countByte(chunk, 0x0a, chunk.length);
    this.tail = lastBytes(this.tail, chunk);
    return text;
  }

  /**
   * From now on, `lineFeeds()` gives the line feeds in all text decode() has returned so far,
   * asked only for an error message; the stream stops counting them itself. The same number as
   * counting bytes: a held unfinished character has no 0x0a byte, and strict decoding turns each
   * 0x0a into one "\n".
   */
  countLinesWith(lineFeeds: () => number): void {
    this.lineFeeds = lineFeeds;
  }

  /** Line feeds in the bytes before the current chunk. */
  private get linesBefore(): number {
    return this.lineFeeds === undefined ? this.countedLines : this.lineFeeds();
  }

  /** Bytes whose characters decode() has returned so far: all but an unfinished character at
   * the end, which the decoder holds until the next chunk. After end(), all of them. */
  decodedBytes(): number {
    return this.bytesBefore - unfinishedAtEnd(this.tail);
  }

  /** Flushes the decoder; fails if the input ended inside a multi-byte character. */
  end(): string {
    try {
      return this.decoder.decode();
    } catch {
      throw invalid(this.bytesBefore, this.linesBefore + 1, "it ends in the middle of a character");
    }
  }

  private errorIn(chunk: Uint8Array): IngestError {
    const joined = new Uint8Array(this.tail.length + Math.min(chunk.length, 1 << 20));
    joined.set(this.tail);
    joined.set(chunk.subarray(0, joined.length - this.tail.length), this.tail.length);
    const at = firstInvalidUtf8(joined);
    const linesInTail = countByte(this.tail, 0x0a, this.tail.length);
    return invalid(this.bytesBefore - this.tail.length + at, this.linesBefore - linesInTail + 1 + countByte(joined, 0x0a, at));
  }
}

/** The last 3 bytes of `before` followed by `chunk`. */
function lastBytes(before: Uint8Array, chunk: Uint8Array): Uint8Array {
  if (chunk.length >= 3) return chunk.slice(chunk.length - 3);
  const joined = new Uint8Array(before.length + chunk.length);
  joined.set(before);
  joined.set(chunk, before.length);
  return joined.slice(Math.max(0, joined.length - 3));
}

/** Bytes of a character begun but not finished at the end of `tail` (valid so far, since
 * decoding did not fail): the lead byte's length says how many should follow. */
export function unfinishedAtEnd(tail: Uint8Array): number {
  for (let k = 1; k <= tail.length; k++) {
    const b = tail[tail.length - k];
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back for the lead
    const length = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return k < length ? k : 0;
  }
  return 0;
}

/** The UTF-8 length of text.slice(from, to): to turn a text offset into a byte offset (error
 * paths, and the end of a decoded piece). Strict decoding never yields a lone surrogate, so each
 * half of a pair counts 2 of 4. */
export function utf8Length(text: string, from = 0, to = text.length): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    n += c < 0x80 ? 1 : c < 0x800 || (c >= 0xd800 && c <= 0xdfff) ? 2 : 3;
  }
  return n;
}

function invalid(byte: number, line: number, detail = "bytes that are not a UTF-8 character"): IngestError {
  return new IngestError(
    "invalid_utf8",
    `The file is not valid UTF-8 text: ${detail} at byte ${byte} (line ${line}). Save the file with UTF-8 encoding and upload it again.`,
  );
}

function countByte(bytes: Uint8Array, b: number, end: number): number {
  let n = 0;
  for (let i = bytes.indexOf(b); i >= 0 && i < end; i = bytes.indexOf(b, i + 1)) n++;
  return n;
}

/**
 * Offset of the first byte that starts an invalid sequence (per the UTF-8 rules TextDecoder
 * applies: no overlongs, no surrogates, nothing past U+10FFFF). Leading continuation bytes are
 * skipped as the tail of a character begun in the previous chunk; a sequence cut off by the end
 * of the chunk counts as fine (it continues in the next one). Returns the chunk length if all
 * is well, which can only happen when the previous chunk's tail was the real culprit.
 */
function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length && i < 3 && (bytes[i] & 0xc0) === 0x80) i++;
  while (i < bytes.length) {
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0;
      if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90;
      if (b === 0xf4) hi = 0x8f;
    } else return i;
    for (let k = 1; k <= need; k++) {
      if (i + k >= bytes.length) return bytes.length;
      const c = bytes[i + k];
      if (k === 1 ? c < lo || c > hi : (c & 0xc0) !== 0x80) return i;
    }
    i += need + 1;
  }
  return bytes.length;
}
