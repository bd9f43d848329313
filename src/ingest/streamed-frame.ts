/**
 * A frame written while its file is read: the reader reports its columns as they stand
 * (RowsRead, at its natural boundaries: a parsed piece of CSV, a Parquet row group), and every
 * batch of rows (SEGMENT_ROWS, fewer for a wide table: BATCH_BYTES) the new rows of each column go
 * to a sink as segments of a version-4 frame (./segmented-frame), to be encoded and stored while
 * the reading goes on. When the frame is complete, each column is matched against the reader's
 * array its rows were sent from: the same values or codes (most columns), or codes whose values
 * turned out to be a function of them (a text column inferred boolean, numeric or datetime at the
 * end: stored as codes plus a table); any other column (one the reader rebuilt at the end, the
 * generated `id`) is sent whole then. That rows once reported do not change in that array is the
 * readers' contract (ProvisionalColumn), trusted here, not checked: tests hold the readers to it.
 */
import type { Column, Frame } from "../ml/frame";
import type { ColumnPlan, SegmentData, Stores } from "./segmented-frame";
import type { ProvisionalColumn, RowsRead } from "./types";

/** Rows between two batches of segments at most: a segment of a column is one unit of encoding
 * and of the frame's footer; at 2^20 rows a 20 M-row table makes 20 per column. */
const SEGMENT_ROWS = 2 ** 20;
/** Raw bytes of a batch at most (its rows are copied for the sink, which may hold a few): 2^20
 * rows of the benchmark's 12 columns are ≈ 70 MB; a table of 400 columns batches 20 K rows. */
const BATCH_BYTES = 64 * 2 ** 20;
const MIN_BATCH_ROWS = 1024;

/** Where segments go (in order): a SegmentedFrameWriter in-process, or one in another thread. */
export interface SegmentSink {
  /** Rows [from, from + data.length) of stream `key`; `data` is the sink's to keep or move. */
  append(key: string, stores: Stores, data: SegmentData, from: number): void;
  /** Resolves when the sink can take more (bounds the segments in flight). */
  drain?(): Promise<void>;
  /** The footer; resolves with the frame's byte length once it is complete. */
  finish(rowCount: number, plans: ColumnPlan[]): Promise<number> | number;
}

const columnKey = (name: string) => `column:${name}`;
const spellingsKey = (name: string) => `spellings:${name}`;

export class StreamedFrame {
  /** Per column: what was sent, up to which row, and the reader's array it came from. */
  private readonly sent = new Map<string, { stores: Stores; rows: number; data: SegmentData }>();
  private lastRows = 0;
  /** Rows a batch: segmentRows, or fewer when that many rows of the table exceed batchBytes. */
  private batchRows: number;
  /** batchRows set from the first report's columns (once: a report's columns cost views, or a
   * Parquet string column's settling). */
  private sized = false;

  constructor(
    private readonly sink: SegmentSink,
    private readonly segmentRows = SEGMENT_ROWS,
    private readonly batchBytes = BATCH_BYTES,
  ) {
    this.batchRows = segmentRows;
  }

  /** The reader's report: every batch of new rows, and at the end (`final`), the rows not yet sent. */
  async checkpoint(read: RowsRead, final: boolean): Promise<void> {
    if (read.rows <= this.lastRows) return;
    if (!this.sized) {
      this.batchRows = this.rowsPerBatch(read.columns());
      this.sized = true;
    }
    if (!final && read.rows - this.lastRows < this.batchRows) return;
    this.lastRows = read.rows;
    for (const c of read.columns()) await this.send(c, read.rows);
    await this.sink.drain?.();
  }

  private rowsPerBatch(columns: ProvisionalColumn[]): number {
    const rowBytes = columns.reduce((sum, c) => sum + c.data.BYTES_PER_ELEMENT, 0);
    return Math.min(this.segmentRows, Math.max(MIN_BATCH_ROWS, Math.floor(this.batchBytes / Math.max(1, rowBytes))));
  }

  /** The frame's plans (sending the columns not already sent as they are); its byte length. */
  async finish(frame: Frame): Promise<number> {
    const plans: ColumnPlan[] = [];
    for (const c of frame.columns) plans.push(await this.plan(c, frame.rowCount));
    return this.sink.finish(frame.rowCount, plans);
  }

  private async send(c: ProvisionalColumn, rows: number): Promise<void> {
    const before = this.sent.get(c.name);
    // a column that switched between values and codes starts over
    const from = before && before.stores === c.stores ? before.rows : 0;
    await this.sendRows(columnKey(c.name), c.stores, c.data, from, rows);
    this.sent.set(c.name, { stores: c.stores, rows, data: c.data });
  }

  private async plan(c: Column, rows: number): Promise<ColumnPlan> {
    const plan: ColumnPlan = { name: c.name, kind: c.kind, storage: c.storage, stream: columnKey(c.name) };
    const sent = this.sent.get(c.name);
    const complete = sent && sent.rows === rows ? sent : undefined;
    if (c.storage === "dictionary") {
      if (!(complete?.stores === "codes" && sameBits(complete.data, c.codes, rows))) await this.sendWhole(plan.stream, "codes", c.codes, rows);
      plan.dictionary = c.dictionary;
      return plan;
    }
    if (c.booleanLabels) plan.booleanLabels = c.booleanLabels;
    if (c.dateOnly) plan.dateOnly = true;
    const table = complete?.stores === "codes" ? tableOf(complete.data as Int32Array, c.values, rows) : undefined;
    if (table) {
      plan.table = table;
      if (c.spellings && sameBits(complete!.data, c.spellings.codes, rows)) {
        plan.spellings = { dictionary: c.spellings.dictionary };
        return plan;
      }
    } else if (!(complete?.stores === "values" && sameBits(complete.data, c.values, rows))) {
      await this.sendWhole(plan.stream, "values", c.values, rows);
    }
    if (c.spellings) {
      plan.spellings = { dictionary: c.spellings.dictionary, stream: spellingsKey(c.name) };
      await this.sendWhole(plan.spellings.stream!, "codes", c.spellings.codes, rows);
    }
    return plan;
  }

  /** A column sent whole (from row 0: its stream starts over), then the sink drained. */
  private async sendWhole(key: string, stores: Stores, data: SegmentData, rows: number): Promise<void> {
    await this.sendRows(key, stores, data, 0, rows);
    await this.sink.drain?.();
  }

  /** Rows [from, to) of a stream, a batch's worth a segment (each a copy), the sink drained
   * between segments when there are several (a column that starts over, one sent whole). */
  private async sendRows(key: string, stores: Stores, data: SegmentData, from: number, to: number): Promise<void> {
    let at = from;
    do {
      const end = Math.min(to, at + this.batchRows);
      this.sink.append(key, stores, data.slice(at, end), at);
      if (end < to) await this.sink.drain?.();
      at = end;
    } while (at < to);
  }
}

/** Whether rows [0, rows) of two columns hold the same bits (-0 and NaN payloads included). */
function sameBits(a: SegmentData, b: SegmentData, rows: number): boolean {
  if (a.BYTES_PER_ELEMENT !== b.BYTES_PER_ELEMENT || a.length < rows || b.length < rows) return false;
  if (a.buffer === b.buffer && a.byteOffset === b.byteOffset) return true;
  const words = (x: SegmentData) => new Int32Array(x.buffer, x.byteOffset, (rows * x.BYTES_PER_ELEMENT) / 4);
  const wa = words(a);
  const wb = words(b);
  for (let i = 0; i < wa.length; i++) if (wa[i] !== wb[i]) return false;
  return true;
}

// The NaN decoding writes for a missing code, as its two 32-bit halves.
const NAN_WORDS = new Int32Array(new Float64Array([Number.NaN]).buffer);

/**
 * The table that gives `values` from `codes` bit for bit (values[i] = table[codes[i]], and the
 * NaN decoding writes where the code is -1), when there is one: each code always with the same
 * bits. Undefined otherwise. Compared and copied as 32-bit words: NaN payloads and -0 kept.
 */
function tableOf(codes: Int32Array, values: Float64Array, rows: number): Float64Array | undefined {
  if (codes.length < rows || values.length < rows) return undefined;
  let max = -1;
  for (let i = 0; i < rows; i++) if (codes[i] > max) max = codes[i];
  const table = new Float64Array(max + 1);
  const t = new Int32Array(table.buffer);
  const seen = new Uint8Array(max + 1);
  const w = new Int32Array(values.buffer, values.byteOffset, 2 * rows);
  for (let i = 0; i < rows; i++) {
    const c = codes[i];
    const lo = w[2 * i];
    const hi = w[2 * i + 1];
    if (c < 0) {
      if (lo !== NAN_WORDS[0] || hi !== NAN_WORDS[1]) return undefined;
    } else if (!seen[c]) {
      seen[c] = 1;
      t[2 * c] = lo;
      t[2 * c + 1] = hi;
    } else if (t[2 * c] !== lo || t[2 * c + 1] !== hi) return undefined;
  }
  return table;
}
