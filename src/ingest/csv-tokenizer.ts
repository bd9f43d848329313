import { asciiString } from "./ascii";
import type { Newline } from "./csv-sniff";

/**
 * One record's fields as spans of the piece's text, so that a cell repeating a value seen before
 * never becomes a string of its own (see DictionaryBuilder.pushSpan). A quoted field with doubled
 * quotes has no span: its unescaped string is kept instead (start -1). Reused record to record.
 */
export class FieldSpans {
  /** The piece's text, when it was decoded; "" when the piece is ASCII bytes (then `bytes`). */
  text = "";
  /** The piece as bytes, all ASCII (AsciiTokenizer), else null: the spans index these. */
  bytes: Uint8Array | null = null;
  /** Where in `text` the record starts (for the byte offset of an error). */
  start = 0;
  count = 0;
  starts = new Int32Array(64);
  ends = new Int32Array(64);
  /** spanHash of each span, computed while scanning. */
  hashes = new Int32Array(64);
  readonly unescaped: string[] = [];

  push(start: number, end: number, hash: number): void {
    if (this.count === this.starts.length) this.grow();
    this.hashes[this.count] = hash;
    this.starts[this.count] = start;
    this.ends[this.count++] = end;
  }

  pushString(value: string): void {
    if (this.count === this.starts.length) this.grow();
    this.starts[this.count] = -1;
    this.unescaped[this.count++] = value;
  }

  /** Field j as a string. */
  get(j: number): string {
    const s = this.starts[j];
    if (s < 0) return this.unescaped[j];
    return this.bytes === null ? this.text.slice(s, this.ends[j]) : asciiString(this.bytes, s, this.ends[j]);
  }

  private grow(): void {
    const starts = new Int32Array(this.starts.length * 2);
    starts.set(this.starts);
    const ends = new Int32Array(this.ends.length * 2);
    ends.set(this.ends);
    const hashes = new Int32Array(this.hashes.length * 2);
    hashes.set(this.hashes);
    this.hashes = hashes;
    this.starts = starts;
    this.ends = ends;
  }
}

/** Where records go, one at a time. `breaks`: line breaks inside the record's fields, so the
 * receiver can count physical lines. */
export interface RecordSink {
  record(fields: FieldSpans, breaks: number): void;
  /** A quoted field on the current record (starting at `fields.start`) is malformed: throws. */
  quoteError(code: "MissingQuotes" | "InvalidQuotes", fields: FieldSpans): never;
}

const QUOTE = 0x22;
const CR = 0x0d;
const LF = 0x0a;

/**
 * A hand-written CSV tokenizer for a single-character delimiter. Papaparse splits each piece into
 * an array of rows of arrays of fields before we see any of it, and that (with its regex per
 * quoted field) bounded ingestion at ≈ 30 MB/s; this scans the decoded text once with
 * charCodeAt and hands each record's fields to the sink as spans of the text, without a string
 * per field, an array per row or an array of rows. Hand-written because of the engine's speed.
 *
 * It reproduces papaparse's reading exactly (the equivalence test compares the two on random
 * files): records end at the newline the sniffer found (with CRLF, a lone CR or LF is text); a
 * field is quoted only if its first character is a quote, then `""` is a quote and the closing
 * quote may be followed by whitespace (as String.prototype.trim defines it) before the delimiter
 * or newline, anything else is InvalidQuotes; a quote inside an unquoted field is text; a file
 * ending inside a quoted field is MissingQuotes.
 */
export class CsvTokenizer {
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
    if (!CsvTokenizer.handles(delimiter)) throw new Error(`CsvTokenizer: unsupported delimiter ${JSON.stringify(delimiter)}`);
    this.delim = delimiter.charCodeAt(0);
    this.crlf = newline === "\r\n";
    this.nl = newline === "\n" ? LF : CR; // with CRLF, the CR (then an LF must follow)
    this.lineChar = newline === "\r" ? CR : LF;
  }

  /** One character, not a quote or line break (papaparse's other delimiters go through papaparse). */
  static handles(delimiter: string): boolean {
    return delimiter.length === 1 && delimiter !== '"' && delimiter !== "\r" && delimiter !== "\n" && delimiter !== "\ufeff";
  }

  /**
   * Hands every complete record of `text` to the sink (all of them when `final`) and returns the
   * offset where the unfinished last record starts (text.length when none is left).
   */
  parse(text: string, final: boolean): number {
    const n = text.length;
    const delim = this.delim;
    const nl = this.nl;
    const crlf = this.crlf;
    const fields = this.fields;
    const special = Math.max(delim, CR, LF);
    let start = 0; // of the current record
    let i = 0; // start of the current field
    let breaks = 0;
    fields.text = text;
    fields.bytes = null;
    fields.start = 0;
    fields.count = 0;
    for (;;) {
      if (i >= n) {
        // End of input at the start of a field.
        if (!final) return start;
        if (fields.count > 0) {
          fields.push(n, n, 0);
          this.sink.record(fields, breaks);
        } // else: an empty last line, which papaparse reads as one blank field (skipped anyway)
        return n;
      }
      if (text.charCodeAt(i) === QUOTE) {
        // Quoted field: find the closing quote, skipping doubled ones.
        let from = i + 1;
        let doubled = false;
        let q: number;
        for (;;) {
          q = text.indexOf('"', from);
          if (q < 0 || (q === n - 1 && !final)) {
            if (!final) return start;
            this.sink.quoteError("MissingQuotes", fields);
          }
          if (q === n - 1) break;
          if (text.charCodeAt(q + 1) === QUOTE) {
            doubled = true;
            from = q + 2;
            continue;
          }
          break;
        }
        breaks += countChar(text, i + 1, q, this.lineChar);
        // After the closing quote: whitespace, then the delimiter, a newline or the end.
        let k = q + 1;
        let ended = false; // the record ends here
        for (;;) {
          if (k >= n) {
            if (k === q + 1) {
              // A quote as the input's last character closes the field and the record.
              ended = true;
              break;
            }
            if (!final) return start;
            this.sink.quoteError("InvalidQuotes", fields);
          }
          const c = text.charCodeAt(k);
          if (c === delim) {
            k++;
            break;
          }
          if (c === nl && (!crlf || (k + 1 < n && text.charCodeAt(k + 1) === LF))) {
            k += crlf ? 2 : 1;
            ended = true;
            break;
          }
          if (crlf && c === CR && k + 1 >= n && !final) return start; // the LF may be next
          if (!isWhitespace(c)) this.sink.quoteError("InvalidQuotes", fields);
          k++;
        }
        if (doubled) fields.pushString(text.slice(i + 1, q).replaceAll('""', '"'));
        else fields.push(i + 1, q, spanHash(text, i + 1, q));
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
      // Unquoted field: up to the delimiter or newline, hashed on the way (spanHash).
      let k = i;
      let h = 0;
      for (;;) {
        if (k >= n) {
          if (!final) return start;
          fields.push(i, n, h);
          this.sink.record(fields, breaks);
          return n;
        }
        const c = text.charCodeAt(k);
        if (c > special) {
          // Most characters: neither the delimiter nor a line break.
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
          } else if (k + 1 < n && text.charCodeAt(k + 1) === LF) {
            fields.push(i, k, h);
            i = k + 2;
          } else {
            if (k + 1 >= n && !final) return start; // the LF may be next
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
        if (crlf && c === LF) breaks++; // a lone LF inside a field of a CRLF file
        h = (Math.imul(h, 31) + c) | 0;
        k++;
      }
    }
  }
}

/**
 * The hash of text[start, end) that DictionaryBuilder.pushSpan expects.
 * @internal exported for its unit tests (test/ingest/span-batch.test.ts and others)
 */
export function spanHash(text: string, start: number, end: number): number {
  let h = 0;
  for (let k = start; k < end; k++) h = (Math.imul(h, 31) + text.charCodeAt(k)) | 0;
  return h;
}

/** Occurrences of character c in text[start, end). */
function countChar(text: string, start: number, end: number, c: number): number {
  let count = 0;
  const ch = String.fromCharCode(c);
  for (let at = text.indexOf(ch, start); at >= 0 && at < end; at = text.indexOf(ch, at + 1)) count++;
  return count;
}

/** The characters String.prototype.trim removes (papaparse allows them after a closing quote). */
export function isWhitespace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}
