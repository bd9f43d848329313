/**
 * The trainer's side of the internal control routes. Every call names the job and the attempt
 * token; a 409 means the job was canceled or taken over, and surfaces as JobCanceledError so the
 * run stops. Network errors are retried a few times: a blip must not cost a long training.
 */
import { FAILURE_MESSAGE_MAX_CHARS } from "../core/limits";
import type { ResultSink } from "../inference/results";
import { decodeFrame } from "../ingest/columnar";
import { JobCanceledError } from "../jobs/errors";
import { framePart, framePartCount } from "../storage/frame-parts";
import { resultPageName } from "../storage/keys";
import type { BatchTask } from "../training/batch-control";
import { bodyBytes } from "../training/body-bytes";
import type { IngestTask } from "../training/ingest-control";
import type { TrainingIO, TrainingReport, TrainingTask } from "../training/io";

/** The job the trainer was handed: a training, or a batch inference over a stored dataset. */
export type AssignedTask =
  | { kind: "train"; task: TrainingTask }
  | { kind: "infer_batch"; task: BatchTask }
  | { kind: "dataset_ingest"; task: IngestTask };

export interface ControlConfig {
  /** Base address of the Worker's control routes (http://control.internal in the container). */
  baseUrl: string;
  /** The internal secret; absent in the container, whose outbound calls the Worker authenticates. */
  secret?: string;
}

const RETRIES = 4;

export class ControlClient {
  constructor(
    private config: ControlConfig,
    private jobId: string,
    private attempt: number,
  ) {}

  private async call(method: string, path: string, body?: BodyInit, contentType?: string, query: Record<string, string> = {}): Promise<Response> {
    const url = new URL(`/internal/jobs/${this.jobId}/${path}`, this.config.baseUrl);
    if (method !== "POST") url.searchParams.set("attempt", String(this.attempt));
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    const headers: Record<string, string> = {};
    if (this.config.secret) headers.Authorization = `Bearer ${this.config.secret}`;
    if (contentType) headers["Content-Type"] = contentType;
    for (let i = 0; ; i++) {
      let res: Response;
      try {
        res = await fetch(url, { method, headers, body });
      } catch (e) {
        // Also the stale keep-alive socket: after seconds of synchronous work (finishing the
        // columns of a large table) the server has closed it, and the next request fails at once
        // (EPIPE, "other side closed"). A fresh connection then works.
        const what = `control ${method} ${path}: ${fetchFailure(e)}`;
        if (i >= RETRIES) throw new Error(`${what} (${i + 1} tries)`, { cause: e });
        log(`${what}; trying again`);
        await sleep(250 * 2 ** i);
        continue;
      }
      if (res.status === 409) throw new JobCanceledError();
      if (res.status >= 500 && i < RETRIES) {
        await sleep(250 * 2 ** i);
        continue;
      }
      return res;
    }
  }

  private async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const payload = body === undefined ? undefined : JSON.stringify(method === "POST" ? { attempt: this.attempt, ...body } : body);
    const res = await this.call(method, path, payload, payload ? "application/json" : undefined);
    if (!res.ok) throw new Error(`control ${method} ${path}: HTTP ${res.status} ${(await res.text()).slice(0, 300)}`);
    return (await res.json()) as T;
  }

  async task(): Promise<AssignedTask> {
    const { kind, task } = await this.json<AssignedTask>("GET", "task");
    return { kind, task } as AssignedTask;
  }

  /** One of the model version's artifact files (batch inference), or null when it is not stored. */
  async readArtifact(file: string): Promise<Uint8Array | null> {
    const res = await this.call("GET", `artifacts/${file}`);
    if (res.status === 404) return null;
    if (!res.ok) throw new Error(`could not read ${file}: HTTP ${res.status}`);
    return new Uint8Array(await res.arrayBuffer());
  }

  /** An ingest job's uploaded file `index`, as a stream. */
  async openSource(index: number): Promise<ReadableStream<Uint8Array>> {
    const res = await this.call("GET", `sources/${index}`);
    if (!res.ok || !res.body) throw new Error(`could not read uploaded file ${index}: HTTP ${res.status}`);
    return res.body;
  }

  /**
   * Stores an ingest's frame of `byteLength` bytes (the concatenation of `chunks`) as an R2
   * multipart upload: one part of FRAME_PART_BYTES copied and sent at a time, each retried alone
   * by `call`; on any failure the upload is aborted (best effort) and the error rethrown.
   */
  async putFrame(byteLength: number, chunks: Uint8Array[]): Promise<void> {
    const { upload_id } = await this.json<{ upload_id: string }>("POST", "frame/uploads", {});
    try {
      const parts: { part_number: number; etag: string }[] = [];
      for (let n = 1; n <= framePartCount(byteLength); n++) {
        const bytes = framePart(chunks, byteLength, n - 1);
        const res = await this.call("PUT", `frame/parts/${n}`, bytes, "application/octet-stream", { upload_id });
        if (!res.ok) throw new Error(`could not store part ${n} of the frame: HTTP ${res.status} ${(await res.text()).slice(0, 300)}`);
        parts.push((await res.json()) as { part_number: number; etag: string });
      }
      await this.json("POST", "frame/complete", { upload_id, parts, bytes: byteLength });
    } catch (e) {
      await this.json("POST", "frame/abort", { upload_id }).catch((err) => log(`could not abort the frame upload: ${err}`));
      throw e;
    }
  }

  /** Stores an ingest's preview (its first rows, small: one request, retried like the others). */
  async putPreview(bytes: Uint8Array): Promise<void> {
    const res = await this.call("PUT", "preview", bytes, "application/octet-stream");
    if (!res.ok) throw new Error(`could not store the preview: HTTP ${res.status} ${(await res.text()).slice(0, 300)}`);
  }

  /** Where a batch inference's result files go. */
  resultSink(): ResultSink {
    const put = async (name: string, body: BodyInit, contentType: string) => {
      const res = await this.call("PUT", `results/${name}`, body, contentType);
      if (!res.ok) throw new Error(`could not store ${name}: HTTP ${res.status}`);
    };
    return {
      putPage: (page, json) => put(resultPageName(page), json, "application/json"),
      putFile: (format, body, contentType) => put(`results.${format}`, body, contentType),
    };
  }

  async succeed(output: object): Promise<void> {
    await this.json("POST", "succeed", { output });
  }

  async fail(message: string, permanent: boolean): Promise<void> {
    await this.json("POST", "fail", { message: message.slice(0, FAILURE_MESSAGE_MAX_CHARS), permanent });
  }

  /** The TrainingIO of the runner, over HTTP. */
  io(): TrainingIO {
    return {
      loadFrame: async () => {
        const res = await this.call("GET", "frame");
        if (!res.ok) throw new Error(`could not read the job's data: HTTP ${res.status}`);
        // not res.arrayBuffer(): it holds a large frame about three times over (training/body-bytes)
        return decodeFrame(await bodyBytes(res));
      },
      loadRepresentation: async () => {
        const res = await this.call("GET", "representation");
        if (res.status === 404) return null;
        if (!res.ok) throw new Error(`could not read the representation: HTTP ${res.status}`);
        return res.text();
      },
      saveRepresentation: async (json) => {
        const res = await this.call("PUT", "representation", json, "application/json");
        if (!res.ok) throw new Error(`could not store the representation: HTTP ${res.status}`);
      },
      saveArtifact: async (file, bytes) => {
        const res = await this.call("PUT", `artifacts/${file}`, bytes, "application/octet-stream");
        if (!res.ok) throw new Error(`could not store ${file}: HTTP ${res.status}`);
      },
      report: async (r: TrainingReport) => {
        const { canceled } = await this.json<{ canceled: boolean }>("POST", "report", r);
        if (canceled) throw new JobCanceledError();
      },
    };
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const log = (msg: string) => console.log(`[trainer] ${new Date().toISOString()} ${msg}`);

/** undici says only "fetch failed"; what failed is in `cause` (its code and message). */
export function fetchFailure(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  const cause = e instanceof Error ? (e.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  if (!cause) return message;
  const detail = [cause.code, cause.message].filter((x) => typeof x === "string" && x).join(": ");
  return detail ? `${message} (${detail})` : message;
}
