/**
 * Stores an ingest's frame from a worker thread WHILE the file is read: the main thread reads
 * (one core, saturated) and hands each batch of rows over (StreamedFrame's segments, copied
 * slices of its columns, moved here), and this thread encodes them (./segmented-frame), fills
 * parts of FRAME_PART_BYTES and uploads each as it fills, one at a time. Measured before it was
 * built: storing 450 MB during the read of a 20 M-row file cost the read 0–5%, where storing it
 * after the read took 8.6–10.8 s (bench/large/RESULTS.md).
 *
 * Memory: a few batches of rows in flight (drain) and the part being filled plus a few waiting
 * to be sent (BATCHES_AHEAD, PARTS_AHEAD). A failure here (a cancel answered 409, a network fault past its retries) comes back
 * to the main thread as the same error at its next batch or at finish; the upload is aborted.
 */
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import type { ColumnPlan, SegmentData, Stores } from "../ingest/segmented-frame";
import { SegmentedFrameWriter } from "../ingest/segmented-frame";
import type { SegmentSink } from "../ingest/streamed-frame";
import { JobCanceledError } from "../jobs/errors";
import { FRAME_PART_BYTES } from "../storage/frame-parts";
import { ControlClient, type ControlConfig } from "./control-client";
import { log } from "./log";
import type { UploadedPart } from "./wire";

const ROLE = "frame-stream";
/** Batches of rows (StreamedFrame's, ≈ 1 M rows: tens of MB) the read may be ahead of the thread,
 * and parts that may wait to be sent: together ≈ 0.2 GB at most, for a read that never waits on a
 * store that is only unevenly slower (20 M rows: the read waited 2.4–2.8 s with one and one). */
const BATCHES_AHEAD = 2;
const PARTS_AHEAD = 2;
/** How long an abort waits for the thread to drop the upload before the thread is ended anyway. */
const ABORT_WAIT_MS = 30_000;

type Order =
  | { type: "append"; key: string; stores: Stores; data: SegmentData; from: number }
  | { type: "mark"; seq: number }
  | { type: "finish"; rowCount: number; plans: ColumnPlan[] }
  | { type: "abort" };

type Report =
  | { type: "marked"; seq: number }
  | { type: "done"; bytes: number }
  | { type: "aborted" }
  | { type: "error"; name: string; message: string };

interface Start {
  role: typeof ROLE;
  config: ControlConfig;
  jobId: string;
  attempt: number;
  partBytes: number;
}

/** The main thread's side: a SegmentSink whose segments are encoded and stored in the thread. */
export class FrameStreamThread implements SegmentSink {
  private readonly worker: Worker;
  private failure: Error | undefined;
  private seq = 0;
  private waitedMs = 0;
  private marked = 0;
  /** Resolves when the thread has aborted the upload (after a failure of its own, or abort()). */
  private readonly aborted: Promise<void>;
  private abortSeen = () => {};
  private readonly waiting = new Set<{ until: (r: Report) => boolean; resolve: (r: Report) => void; reject: (e: Error) => void }>();

  constructor(client: ControlClient, partBytes = FRAME_PART_BYTES) {
    const here = new URL(import.meta.url);
    // Under tsx (npm start, tests) the thread loads this TypeScript file through tsx too; the
    // container runs the bundle (plain JavaScript), which is this same module.
    const execArgv = here.pathname.endsWith(".ts") ? ["--import", "tsx"] : undefined;
    const start: Start = { role: ROLE, config: client.config, jobId: client.jobId, attempt: client.attempt, partBytes };
    this.aborted = new Promise<void>((resolve) => (this.abortSeen = resolve));
    this.worker = new Worker(here, { workerData: start, execArgv });
    this.worker.on("message", (r: Report) => this.receive(r));
    this.worker.on("error", (e) => this.fail(e));
    this.worker.on("exit", (code) => {
      this.abortSeen();
      this.fail(new Error(`the frame upload thread stopped (exit code ${code}) before the frame was stored`));
    });
  }

  append(key: string, stores: Stores, data: SegmentData, from: number): void {
    this.check();
    this.worker.postMessage({ type: "append", key, stores, data, from } satisfies Order, [data.buffer as ArrayBuffer]);
  }

  /** Waits until the thread has taken all but the last BATCHES_AHEAD batches (the read and the
   * store go at uneven paces: a store slow for a moment should not hold the read back at once). */
  async drain(): Promise<void> {
    this.check();
    const seq = ++this.seq;
    this.worker.postMessage({ type: "mark", seq } satisfies Order);
    if (this.marked >= seq - BATCHES_AHEAD) return;
    const started = performance.now();
    await this.until((r) => r.type === "marked" && r.seq >= seq - BATCHES_AHEAD);
    this.waitedMs += performance.now() - started;
  }

  /** Seconds the reader spent waiting for the thread (drain): the store holding the read back. */
  get waitedSeconds(): number {
    return Math.round(this.waitedMs) / 1000;
  }

  async finish(rowCount: number, plans: ColumnPlan[]): Promise<number> {
    this.check();
    this.worker.postMessage({ type: "finish", rowCount, plans } satisfies Order);
    const done = await this.until((r) => r.type === "done");
    return done.type === "done" ? done.bytes : 0;
  }

  /** Aborts the upload (after a failed read, or once the thread failed and aborts it itself) and
   * ends the thread; never throws. */
  async abort(): Promise<void> {
    if (!this.failure) this.worker.postMessage({ type: "abort" } satisfies Order);
    // bounded: a part stuck on the network must not keep the job's failure from being reported
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([this.aborted, new Promise<void>((resolve) => (timer = setTimeout(resolve, ABORT_WAIT_MS)))]);
    clearTimeout(timer);
    await this.close();
  }

  async close(): Promise<void> {
    this.worker.removeAllListeners("exit");
    await this.worker.terminate();
  }

  private receive(r: Report): void {
    if (r.type === "marked") this.marked = Math.max(this.marked, r.seq);
    if (r.type === "aborted") this.abortSeen();
    if (r.type === "error") {
      this.fail(r.name === "JobCanceledError" ? new JobCanceledError() : Object.assign(new Error(r.message), { name: r.name }));
      return;
    }
    for (const w of [...this.waiting]) {
      if (w.until(r)) {
        this.waiting.delete(w);
        w.resolve(r);
      }
    }
  }

  private fail(e: Error): void {
    this.failure ??= e;
    for (const w of this.waiting) w.reject(this.failure);
    this.waiting.clear();
  }

  private check(): void {
    if (this.failure) throw this.failure;
  }

  private until(predicate: (r: Report) => boolean): Promise<Report> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => this.waiting.add({ until: predicate, resolve, reject }));
  }
}

/** The thread's side: segments encoded into parts, each part sent as it fills, one at a time. */
class PartStore {
  private readonly writer: SegmentedFrameWriter;
  private part: Uint8Array;
  private filled = 0;
  private readonly parts: UploadedPart[] = [];
  /** The parts queued or being sent, oldest (the one on the wire) first. */
  private readonly pending: Promise<void>[] = [];
  private sending: Promise<void> = Promise.resolve();
  /** Parts sent straight to R2 (presigned URLs), not through the control routes. */
  private straight = 0;
  /** Begun with the first part: a file that fails before leaves no upload behind. */
  private uploadId: Promise<string> | undefined;
  private readonly started = Date.now();
  /** Time spent encoding segments and sending parts (for the log: where the thread's time went). */
  private encodeMs = 0;
  private sendMs = 0;

  /** `failed`: told of a part that could not be sent, as soon as it fails. */
  constructor(
    private readonly client: ControlClient,
    private readonly partBytes: number,
    private readonly failed: (e: unknown) => void,
  ) {
    this.part = new Uint8Array(partBytes);
    this.writer = new SegmentedFrameWriter((bytes) => this.write(bytes));
  }

  append(key: string, stores: Stores, data: SegmentData, from: number): void {
    const started = performance.now();
    this.writer.append(key, stores, data, from);
    this.encodeMs += performance.now() - started;
  }

  /** Resolves once at most PARTS_AHEAD parts wait behind the one being sent. */
  async settled(): Promise<void> {
    while (this.pending.length > 1 + PARTS_AHEAD) await this.pending[0];
  }

  async finish(rowCount: number, plans: ColumnPlan[]): Promise<number> {
    const bytes = this.writer.finish(rowCount, plans);
    if (this.filled > 0 || this.parts.length + this.pending.length === 0) this.send(this.part.subarray(0, this.filled));
    await this.sending;
    await this.client.completeFrameUpload(await this.upload(), this.parts, bytes);
    const count = this.parts.length;
    const how = this.straight === count ? "straight to R2" : this.straight === 0 ? "through the control routes" : `${this.straight} straight to R2`;
    const [seconds, encode, send] = [(Date.now() - this.started) / 1000, Math.round(this.encodeMs) / 1000, Math.round(this.sendMs) / 1000];
    log(
      `job ${this.client.jobId}: frame of ${bytes} bytes stored in ${count} part(s) ${how} as it was written (encoding ${encode} s, sending ${send} s), done ${seconds} s after the thread started`,
    );
    return bytes;
  }

  async abort(): Promise<void> {
    await this.sending.catch(() => {});
    if (this.uploadId) await this.client.abortFrameUpload(await this.uploadId);
  }

  private upload(): Promise<string> {
    this.uploadId ??= this.client.beginFrameUpload();
    return this.uploadId;
  }

  /** Copies the writer's bytes into parts; a full part is sent. */
  private write(bytes: Uint8Array): void {
    let at = 0;
    while (at < bytes.byteLength) {
      const n = Math.min(bytes.byteLength - at, this.partBytes - this.filled);
      this.part.set(bytes.subarray(at, at + n), this.filled);
      this.filled += n;
      at += n;
      if (this.filled === this.partBytes) {
        this.send(this.part);
        this.part = new Uint8Array(this.partBytes);
        this.filled = 0;
      }
    }
  }

  private send(bytes: Uint8Array): void {
    const n = this.parts.length + this.pending.length + 1;
    const sent = this.sending.then(async () => {
      const sendStarted = performance.now();
      const { part, straight } = await this.client.putFramePart(await this.upload(), n, bytes);
      this.sendMs += performance.now() - sendStarted;
      this.parts.push(part);
      if (straight) this.straight++;
      this.pending.shift();
    });
    this.pending.push(sent);
    this.sending = sent;
    sent.catch(this.failed);
  }
}

if (!isMainThread && (workerData as Start | undefined)?.role === ROLE) {
  const start = workerData as Start;
  const port = parentPort!;
  const report = (r: Report) => port.postMessage(r);
  let failed = false;
  const store = new PartStore(new ControlClient(start.config, start.jobId, start.attempt), start.partBytes, (e) => failWith(e));
  const failWith = (e: unknown) => {
    if (failed) return;
    failed = true;
    report({ type: "error", ...describe(e) });
    void store
      .abort()
      .catch(() => {}) // the upload never began: nothing to abort
      .finally(() => report({ type: "aborted" }));
  };
  // Orders are handled one after another (an append's encoding is synchronous; a mark or the
  // finish waits for the parts), in the order they were sent; an abort skips the orders still
  // queued before it (rows the failed read reported are not worth encoding and sending).
  let queue: Promise<void> = Promise.resolve();
  let aborting = false;
  port.on("message", (order: Order) => {
    if (order.type === "abort") aborting = true;
    queue = queue.then(async () => {
      if (failed || (aborting && order.type !== "abort")) return;
      try {
        if (order.type === "append") store.append(order.key, order.stores, order.data, order.from);
        else if (order.type === "mark") {
          await store.settled();
          report({ type: "marked", seq: order.seq });
        } else if (order.type === "finish") report({ type: "done", bytes: await store.finish(order.rowCount, order.plans) });
        else {
          failed = true;
          await store
            .abort()
            .catch(() => {})
            .finally(() => report({ type: "aborted" }));
        }
      } catch (e) {
        failWith(e);
      }
    });
  });
}

/** An error as it crosses to the main thread: its name, and its message with its cause's. */
function describe(e: unknown): { name: string; message: string } {
  if (!(e instanceof Error)) return { name: "Error", message: String(e) };
  const cause = e.cause instanceof Error ? e.cause.message : undefined;
  return { name: e.name, message: cause && !e.message.includes(cause) ? `${e.message} (${cause})` : e.message };
}
