/**
 * The trainer's side of the internal control routes. Every call names the job and the attempt
 * token; a 409 means the job was canceled or taken over, and surfaces as JobCanceledError so the
 * run stops. Network errors are retried a few times: a blip must not cost a long training.
 */
import { FAILURE_MESSAGE_MAX_CHARS } from "../core/limits";
import type { ResultSink } from "../inference/results";
import { decodeFrame } from "../ingest/columnar";
import { JobCanceledError } from "../jobs/errors";
import { resultPageName } from "../storage/keys";
import type { BatchTask } from "../training/batch-control";
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

  private async call(method: string, path: string, body?: BodyInit, contentType?: string): Promise<Response> {
    const url = new URL(`/internal/jobs/${this.jobId}/${path}`, this.config.baseUrl);
    if (method !== "POST") url.searchParams.set("attempt", String(this.attempt));
    const headers: Record<string, string> = {};
    if (this.config.secret) headers.Authorization = `Bearer ${this.config.secret}`;
    if (contentType) headers["Content-Type"] = contentType;
    for (let i = 0; ; i++) {
      let res: Response;
      try {
        res = await fetch(url, { method, headers, body });
      } catch (e) {
        if (i >= RETRIES) throw e;
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

  /** Streams an ingest's output (`frame` or `preview`) of `byteLength` bytes, from its chunks. */
  async putIngested(part: "frame" | "preview", byteLength: number, chunks: Uint8Array[]): Promise<void> {
    let i = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (i < chunks.length) controller.enqueue(chunks[i++]);
        else controller.close();
      },
    });
    // A stream body is sent once: no retries here (a failure fails the attempt, which is retried).
    const url = new URL(`/internal/jobs/${this.jobId}/${part}`, this.config.baseUrl);
    url.searchParams.set("attempt", String(this.attempt));
    const headers: Record<string, string> = { "Content-Type": "application/octet-stream", "Content-Length": String(byteLength) };
    if (this.config.secret) headers.Authorization = `Bearer ${this.config.secret}`;
    const res = await fetch(url, { method: "PUT", headers, body, duplex: "half" } as RequestInit);
    if (res.status === 409) throw new JobCanceledError();
    if (!res.ok) throw new Error(`could not store the ${part}: HTTP ${res.status} ${(await res.text()).slice(0, 300)}`);
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
        return decodeFrame(new Uint8Array(await res.arrayBuffer()));
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
