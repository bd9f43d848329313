import { asciiString } from "./ascii";
import type { Newline } from "./csv-sniff";
import { FieldSpans, isWhitespace, type RecordSink } from "./csv-tokenizer";

const QUOTE = 0x22;
const CR = 0x0d;
const LF = 0x0a;

/**
 * CsvTokenizer over a piece of ASCII bytes instead of a decoded string: the same reading line for
 * line (see there; test/ingest/ascii-bytes.test.ts compares the two), with `bytes[k]` for
 * `text.charCodeAt(k)`. A piece of ASCII needs no decoding nor joining into one string, and
 * typed-array reads are about twice as fast as charCodeAt (which dispatches on the string's
 * representation at every read). The spans are byte offsets, and since every byte is one
 * character, they are also character offsets and the span hashes are those of the text.
 * The reader uses it only for a piece whose bytes are all below 0x80 and an ASCII delimiter;
 * any other piece is decoded and read by CsvTokenizer.
 */
export class AsciiTokenizer {
  private readonly delim: number;
  private readonly crlf: boolean;
  private readonly nl: number;
  private readonly lineChar: number;
  private readonly fields = new FieldSpans();

  constructor(
    delimiter: string,
    newline: Newline,
    private readonly sink: RecordSink,
  ) {
    if (!AsciiTokenizer.handles(delimiter)) throw new Error(`AsciiTokenizer: unsupported delimiter ${JSON.stringify(delimiter)}`);
    this.delim = delimiter.charCodeAt(0);
    this.crlf = newline === "\r\n";
    this.nl = newline === "\n" ? LF : CR;
    this.lineChar = newline === "\r" ? CR : LF;
  }

  /** One ASCII character, not a quote or line break. */
  static handles(delimiter: string): boolean {
    return delimiter.length === 1 && delimiter.charCodeAt(0) < 0x80 && delimiter !== '"' && delimiter !== "\r" && delimiter !== "\n";
  }

  /**
   * Hands every complete record of `bytes` (all ASCII) to the sink (all of them when `final`) and
   * returns the offset where the unfinished last record starts (bytes.length when none is left).
   */
  parse(bytes: Uint8Array, final: boolean): number {
    const n = bytes.length;
    const delim = this.delim;
    const nl = this.nl;
    const crlf = this.crlf;
    const fields = this.fields;
    const special = Math.max(delim, CR, LF);
    let start = 0;
    let i = 0;
    let breaks = 0;
    fields.text = "";
    fields.bytes = bytes;
    fields.start = 0;
    fields.count = 0;
    for (;;) {
      if (i >= n) {
        if (!final) return start;
        if (fields.count > 0) {
          fields.push(n, n, 0);
          this.sink.record(fields, breaks);
        }
        return n;
      }
      if (bytes[i] === QUOTE) {
        let from = i + 1;
        let doubled = false;
        let q: number;
        for (;;) {
          q = bytes.indexOf(QUOTE, from);
          if (q < 0 || (q === n - 1 && !final)) {
            if (!final) return start;
            this.sink.quoteError("MissingQuotes", fields);
          }
          if (q === n - 1) break;
          if (bytes[q + 1] === QUOTE) {
            doubled = true;
            from = q + 2;
            continue;
          }
          break;
        }
        breaks += countByte(bytes, i + 1, q, this.lineChar);
        let k = q + 1;
        let ended = false;
        for (;;) {
          if (k >= n) {
            if (k === q + 1) {
              ended = true;
              break;
            }
            if (!final) return start;
            this.sink.quoteError("InvalidQuotes", fields);
          }
          const c = bytes[k];
          if (c === delim) {
            k++;
            break;
          }
          if (c === nl && (!crlf || (k + 1 < n && bytes[k + 1] === LF))) {
            k += crlf ? 2 : 1;
            ended = true;
            break;
          }
          if (crlf && c === CR && k + 1 >= n && !final) return start;
          if (!isWhitespace(c)) this.sink.quoteError("InvalidQuotes", fields);
          k++;
        }
        if (doubled) fields.pushString(asciiString(bytes, i + 1, q).replaceAll('""', '"'));
        else fields.push(i + 1, q, byteHash(bytes, i + 1, q));
        i = k;
        if (ended) {
          this.sink.record(fields, breaks);
          fields.count = 0;
          breaks = 0;
          start = i;
          fields.start = i;
          if (i >= n) return n;
        }
        continue;
      }
      let k = i;
      let h = 0;
      for (;;) {
        if (k >= n) {
          if (!final) return start;
          fields.push(i, n, h);
          this.sink.record(fields, breaks);
          return n;
        }
        const c = bytes[k];
        if (c > special) {
          h = (Math.imul(h, 31) + c) | 0;
          k++;
          continue;
        }
        if (c === delim) {
          fields.push(i, k, h);
          i = k + 1;
          break;
        }
        if (c === nl) {
          if (!crlf) {
            fields.push(i, k, h);
            i = k + 1;
          } else if (k + 1 < n && bytes[k + 1] === LF) {
            fields.push(i, k, h);
            i = k + 2;
          } else {
            if (k + 1 >= n && !final) return start;
            h = (Math.imul(h, 31) + c) | 0;
            k++;
            continue;
          }
          this.sink.record(fields, breaks);
          fields.count = 0;
          breaks = 0;
          start = i;
          fields.start = i;
          break;
        }
        if (crlf && c === LF) breaks++;
        h = (Math.imul(h, 31) + c) | 0;
        k++;
      }
    }
  }
}

/**
 * spanHash (csv-tokenizer) of the ASCII bytes[start, end): the same number as of their text.
 * @internal exported for its unit test (test/ingest/ascii-bytes.test.ts)
 */
export function byteHash(bytes: Uint8Array, start: number, end: number): number {
  let h = 0;
  for (let k = start; k < end; k++) h = (Math.imul(h, 31) + bytes[k]) | 0;
  return h;
}

/** Occurrences of byte c in bytes[start, end). */
function countByte(bytes: Uint8Array, start: number, end: number, c: number): number {
  let count = 0;
  for (let at = bytes.indexOf(c, start); at >= 0 && at < end; at = bytes.indexOf(c, at + 1)) count++;
  return count;
}
