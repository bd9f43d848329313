/**
 * Stores an ingest's frame from a worker thread, so that the profile computed meanwhile on the
 * main thread does not hold the upload back: on one thread, each column's profile (≈ 0.1–0.3 s at
 * 10–20 M rows) left the socket idle and the upload waited (20 M rows: 6.6 s alone, 11.8 s beside
 * the profile; bench/large/RESULTS.md). The thread runs ControlClient.putFrame as the main thread
 * would; the encoded pieces are moved to it, not copied, and pieces that are views of the frame's
 * own arrays (raw columns, which the profile still reads) are copied first.
 */
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { JobCanceledError } from "../jobs/errors";
import type { Frame } from "../ml/frame";
import { ControlClient, type ControlConfig } from "./control-client";

const ROLE = "frame-upload";

interface UploadOrder {
  config: ControlConfig;
  jobId: string;
  attempt: number;
  byteLength: number;
  chunks: Uint8Array[];
}

type Report = { done: true } | { error: { name: string; message: string } };

/**
 * Raw columns (views of the frame's own arrays) are copied for the thread up to this many bytes;
 * beyond, the upload stays on the main thread, where putFrame copies one part at a time: a frame
 * of mostly raw floats near the trainer's cell limit would otherwise be held twice.
 */
export const MAX_THREAD_COPY_BYTES = 256 * 2 ** 20;

/** ControlClient.putFrame(byteLength, chunks) for `client` (storing `frame`), in a thread of its own unless that would copy too much. */
export async function storeFrame(
  client: ControlClient,
  frame: Frame,
  byteLength: number,
  chunks: Uint8Array[],
  maxCopyBytes = MAX_THREAD_COPY_BYTES,
): Promise<void> {
  const own = new Set<ArrayBufferLike>();
  for (const c of frame.columns) {
    own.add(c.storage === "numeric" ? c.values.buffer : c.codes.buffer);
    if (c.storage === "numeric" && c.spellings) own.add(c.spellings.codes.buffer);
  }
  const copied = chunks.reduce((sum, c) => sum + (own.has(c.buffer) ? c.byteLength : 0), 0);
  if (copied > maxCopyBytes) return client.putFrame(byteLength, chunks);
  const sent = chunks.map((c) => (own.has(c.buffer) ? c.slice() : c));
  const order: UploadOrder = { config: client.config, jobId: client.jobId, attempt: client.attempt, byteLength, chunks: sent };
  return inThread(order, [...new Set(sent.map((c) => c.buffer as ArrayBuffer))]);
}

function inThread(order: UploadOrder, transfer: ArrayBuffer[]): Promise<void> {
  const here = new URL(import.meta.url);
  // Under tsx (npm start, tests) the thread loads this TypeScript file through tsx too; the
  // container runs the bundle (plain JavaScript), which is this same module.
  const execArgv = here.pathname.endsWith(".ts") ? ["--import", "tsx"] : undefined;
  return new Promise<void>((resolve, reject) => {
    const worker = new Worker(here, { workerData: { role: ROLE }, execArgv });
    let settled = false;
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      void worker.terminate();
      if (error) reject(error);
      else resolve();
    };
    worker.on("message", (m: Report) => ("done" in m ? settle() : settle(threadError(m.error))));
    worker.on("messageerror", (e) => settle(e));
    worker.on("error", (e) => settle(e));
    worker.on("exit", (code) => settle(new Error(`the frame upload thread stopped (exit code ${code}) before the frame was stored`)));
    try {
      worker.postMessage(order, transfer);
    } catch (e) {
      settle(e as Error); // the thread is ended, not left waiting for an order that never comes
    }
  });
}

/** The thread's error as the main thread throws it: a cancel stays a cancel, a network error keeps its cause in the message. */
function threadError(e: { name: string; message: string }): Error {
  if (e.name === "JobCanceledError") return new JobCanceledError();
  return Object.assign(new Error(e.message), { name: e.name });
}

if (!isMainThread && workerData?.role === ROLE) {
  const port = parentPort!;
  port.once("message", (order: UploadOrder) => {
    const report = (r: Report) => port.postMessage(r);
    new ControlClient(order.config, order.jobId, order.attempt).putFrame(order.byteLength, order.chunks).then(
      () => report({ done: true }),
      (e: unknown) => report({ error: describe(e) }),
    );
  });
  port.once("messageerror", (e) => port.postMessage({ error: describe(e) } satisfies Report));
}

/** An error as it crosses to the main thread: its name, and its message with its cause's. */
function describe(e: unknown): { name: string; message: string } {
  if (!(e instanceof Error)) return { name: "Error", message: String(e) };
  const cause = e.cause instanceof Error ? e.cause.message : undefined;
  return { name: e.name, message: cause && !e.message.includes(cause) ? `${e.message} (${cause})` : e.message };
}
