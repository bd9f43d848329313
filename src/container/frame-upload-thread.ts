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

/** ControlClient.putFrame(byteLength, chunks) for `client` (storing `frame`), run in a thread of its own. */
export function putFrameInThread(client: ControlClient, frame: Frame, byteLength: number, chunks: Uint8Array[]): Promise<void> {
  const own = new Set<ArrayBufferLike>();
  for (const c of frame.columns) {
    own.add(c.storage === "numeric" ? c.values.buffer : c.codes.buffer);
    if (c.storage === "numeric" && c.spellings) own.add(c.spellings.codes.buffer);
  }
  const sent = chunks.map((c) => (own.has(c.buffer) ? c.slice() : c));
  const transfer = [...new Set(sent.map((c) => c.buffer as ArrayBuffer))];
  const order: UploadOrder = { config: client.config, jobId: client.jobId, attempt: client.attempt, byteLength, chunks: sent };
  const here = new URL(import.meta.url);
  // Under tsx (npm start, tests) the thread loads this TypeScript file through tsx too; the
  // container runs the bundle (plain JavaScript), which is this same module.
  const execArgv = here.pathname.endsWith(".ts") ? ["--import", "tsx"] : undefined;
  const worker = new Worker(here, { workerData: { role: ROLE }, execArgv });
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      void worker.terminate();
      if (error) reject(error);
      else resolve();
    };
    worker.on("message", (m: Report) => {
      if ("done" in m) settle();
      else settle(m.error.name === "JobCanceledError" ? new JobCanceledError() : Object.assign(new Error(m.error.message), { name: m.error.name }));
    });
    worker.on("error", (e) => settle(e));
    worker.on("exit", (code) => settle(new Error(`the frame upload thread stopped (exit code ${code}) before the frame was stored`)));
    worker.postMessage(order, transfer);
  });
}

if (!isMainThread && workerData?.role === ROLE) {
  const port = parentPort!;
  port.once("message", (order: UploadOrder) => {
    const report = (r: Report) => port.postMessage(r);
    new ControlClient(order.config, order.jobId, order.attempt).putFrame(order.byteLength, order.chunks).then(
      () => report({ done: true }),
      (e: unknown) => report({ error: { name: e instanceof Error ? e.name : "Error", message: e instanceof Error ? e.message : String(e) } }),
    );
  });
}
