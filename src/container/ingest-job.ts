/**
 * A dataset_ingest job in the trainer (uploads larger than the Worker can hold): the uploaded
 * files streamed straight from R2 (presigned URLs in the task; through the control routes when
 * the Worker has none) through the shared reader (../ingest/read-sources, CSV parsed as it
 * arrives), progress in bytes read; the frame stored in parts (straight to R2 likewise) by another
 * thread AS the file is read, its preview sent back and the summary (shape, profile) handed to
 * `succeed`, which records it on the version.
 */
import { PREVIEW_ROWS } from "../core/limits";
import { type IngestSummary, ingestSummaryInTurns } from "../datasets/ingest-job";
import { encodeFrame } from "../ingest/columnar";
import { headFrame } from "../ingest/head";
import { nodeCompressors } from "../ingest/node-compressors";
import { readSources } from "../ingest/read-sources";
import { StreamedFrame } from "../ingest/streamed-frame";
import type { Frame } from "../ml/frame";
import type { ControlClient } from "./control-client";
import { FrameStreamThread } from "./frame-stream-thread";
import { log } from "./log";
import { trainerFrameCells } from "./trainer-memory";
import type { IngestTask } from "./wire";

export async function runIngestInTrainer(client: ControlClient, task: IngestTask) {
  const started = Date.now();
  const since = (t: number) => (Date.now() - t) / 1000;
  // CPU seconds of this (the reading) thread beside the wall seconds: on a shared or another
  // machine the wall seconds alone cannot tell a slower read from a starved one (the 2 GB ingest
  // went from 64 to 32 MB/s when the VM moved to a slower CPU, bench/large/RESULTS.md).
  const cpuStarted = threadCpu();
  const cpuSince = () => {
    const { user, system } = threadCpu(cpuStarted);
    return Math.round((user + system) / 1000) / 1000;
  };
  const io = client.io();
  await io.report({ progress: 5 });
  // The frame is encoded and stored by another thread as the file is read (./frame-stream-thread).
  const sink = new FrameStreamThread(client);
  try {
    const streamed = new StreamedFrame(sink);
    const { frame, idGenerated } = await readSources(
      task.files.map((f, i) => ({
        filename: f.filename,
        bytes: f.bytes,
        open: () => client.openSource(i, f.url),
        // a Parquet file is then read as it arrives, its footer first
        openRange: (start: number, end: number) => client.readSourceRange(i, start, end, f.url),
      })),
      {
        format: task.format,
        maxCells: trainerFrameCells(),
        compressors: nodeCompressors,
        sizeColumnsFromFile: true,
        // bytes read is the progress of an ingest: 5–85 %
        onProgress: (read, total) => io.report({ progress: 5 + Math.round((80 * read) / Math.max(1, total)) }),
        onRows: (rows, final) => streamed.checkpoint(rows, final),
      },
    );
    // The rest of the frame is stored while its profile is computed: the transfer is I/O served
    // elsewhere, the profile CPU here, a column at a time with the event loop let through.
    const read = since(started);
    const readCpu = cpuSince();
    const storeStarted = Date.now();
    const stored = streamed.finish(frame);
    const summary = await profileWhileStoring(frame, idGenerated, stored);
    const profile = since(storeStarted);
    const frameBytes = await stored;
    const store = since(storeStarted);
    await client.putPreview(encodeFrame(headFrame(frame, PREVIEW_ROWS)));
    await io.report({ progress: 95, rows_processed: frame.rowCount });
    // where the time went (the profile runs while the last of the frame is stored)
    log(
      `job ${client.jobId}: read ${read} s (${readCpu} CPU s; frame stored meanwhile; the read waited ${sink.waitedSeconds} s for it), rest of the ${frameBytes}-byte frame stored ${store} s later (profile ${profile} s meanwhile; ${cpuSince()} CPU s on this thread in all)`,
      { job_id: client.jobId, attempt: client.attempt },
    );
    return {
      row_count: frame.rowCount,
      column_count: summary.columnCount,
      format: task.format,
      bytes: task.total_bytes,
      files: task.files.length,
      seconds: since(started),
      peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
      summary,
    };
  } catch (e) {
    await sink.abort();
    throw e;
  } finally {
    await sink.close();
  }
}

/** This thread's CPU time (Node ≥ 22.15; the trainer's image has 22.23), else the process's. */
const threadCpu = (previous?: NodeJS.CpuUsage): NodeJS.CpuUsage =>
  typeof process.threadCpuUsage === "function" ? process.threadCpuUsage(previous) : process.cpuUsage(previous);

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The frame's profile, a column a turn, while `stored` (its upload) settles. A failed upload ends
 * the profile at the next column with the upload's error (a cancel, a network fault), rather than
 * after the whole profile; a failed profile waits for the upload to settle (stored or aborted)
 * within this attempt before its error is thrown.
 * @internal exported for its unit test (test/training/profile-while-storing.test.ts)
 */
export async function profileWhileStoring(frame: Frame, idGenerated: boolean, stored: Promise<unknown>, turn = nextTurn): Promise<IngestSummary> {
  let failure: { error: unknown } | undefined;
  stored.catch((error: unknown) => {
    failure = { error };
  });
  const checkedTurn = async () => {
    await turn();
    if (failure) throw failure.error;
  };
  try {
    return await ingestSummaryInTurns(frame, idGenerated, checkedTurn);
  } catch (e) {
    await stored.catch(() => {});
    throw e;
  }
}
