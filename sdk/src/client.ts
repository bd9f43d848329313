import createClient, { type Client } from "openapi-fetch";
import { blobBody, type CountedBody, multipartBody, type OnBytes } from "./body.js";
import { apiError, errorOf, type Job, JobFailedError } from "./errors.js";
import { DIRECT_UPLOAD_MAX_BYTES } from "./limits.js";
import { withIdempotencyKey } from "./repeat.js";
import { fetchRetrying, type OnLost, type RetryOptions, sleep } from "./retry.js";
import type { components, paths } from "./schema.js";
import { streamingFetch } from "./stream-fetch.js";

export type Schemas = components["schemas"];
export type TrainRequest = NonNullable<paths["/models/train"]["post"]["requestBody"]>["content"]["application/json"];

export interface ClientOptions {
  /** Where the service answers, e.g. `http://127.0.0.1:8787`. */
  baseUrl: string;
  /** `sk_…` */
  apiKey: string;
  /**
   * How 429 answers (always retried, honouring `Retry-After`) and requests that got no answer
   * (retried when that cannot do anything twice: src/repeat.ts) are retried.
   */
  retry?: RetryOptions;
  fetch?: typeof fetch;
}

export interface UploadOptions {
  /** Name of the new dataset (default: the file name). */
  name?: string;
  /** Add a version to this dataset instead. */
  datasetId?: string;
  description?: string;
  /** Needed when `file` is a Blob rather than a File. */
  filename?: string;
  onProgress?: OnBytes;
  /** Force the signed-URL flow whatever the size. */
  signed?: boolean;
  /** The upload's Idempotency-Key, sent with the direct POST or the signed flow's prepare (default: a new one per call, the same on every attempt). */
  idempotencyKey?: string;
}

export interface Uploaded {
  datasetId: string;
  versionId: string;
  versionNumber: number | null;
  jobId: string;
  method: "direct" | "signed";
}

export interface WaitOptions {
  /** Called on every poll with the job as it is now. */
  onProgress?: (job: Job) => void;
  /** Between polls (default 1 s). */
  intervalMs?: number;
  /** Give up after this long (default: never). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

const TERMINAL = new Set(["succeeded", "failed", "canceled", "rejected"]);

const CONTENT_TYPES: Record<string, string> = {
  csv: "text/csv",
  tsv: "text/tab-separated-values",
  txt: "text/plain",
  parquet: "application/vnd.apache.parquet",
  pq: "application/vnd.apache.parquet",
};

/** The media type the service reads for a file name (by extension). */
export function contentTypeOf(filename: string): string {
  return CONTENT_TYPES[filename.split(".").pop()?.toLowerCase() ?? ""] ?? "text/csv";
}

/**
 * A client of the service: `api` is the typed client of every route (openapi-fetch over the
 * service's OpenAPI document), and a few calls that take several requests are written out here.
 * Every request retries 429s, and a request that got no answer is sent again when that cannot do
 * anything twice (every create carries an Idempotency-Key for that: src/repeat.ts), else a
 * `ConnectionFailedError` is thrown. Any other error answer is thrown as an `ApiError` by the calls
 * here (and returned as `{ error }` by `api`, as openapi-fetch does).
 */
export class TabularClient {
  readonly api: Client<paths>;
  private readonly base: string;
  private readonly fetchImpl: typeof fetch;
  /** For requests whose body is streamed (uploads): ./stream-fetch, unless a `fetch` was given. */
  private readonly bodyFetch: typeof fetch;

  constructor(private readonly opts: ClientOptions) {
    this.base = opts.baseUrl.replace(/\/+$/, "");
    this.fetchImpl = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.bodyFetch = opts.fetch ?? ((input) => streamingFetch(input as Request));
    this.api = createClient<paths>({
      baseUrl: this.base,
      headers: { Authorization: `Bearer ${opts.apiKey}` },
      // The key is set once, before the first attempt; the request is cloned for each attempt: its
      // body can be read only once.
      fetch: (req: Request) => {
        const keyed = withIdempotencyKey(req);
        return fetchRetrying(() => keyed.clone(), this.fetchImpl, opts.retry);
      },
    });
  }

  /** The data of an openapi-fetch answer, or its error thrown as an ApiError. */
  async call<T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
    const { data, error, response } = await pending;
    if (error !== undefined || !response.ok) throw apiError(response.status, error, response.statusText || `HTTP ${response.status}`);
    return data as T;
  }

  /**
   * Upload a CSV or Parquet file as a new dataset (or a new version of `datasetId`): one POST
   * up to 30 MB, else prepare → PUT to the signed URL → complete. Answers once the ingest job is
   * queued; `waitForJob(jobId)` follows it.
   */
  async upload(file: Blob, opts: UploadOptions = {}): Promise<Uploaded> {
    const filename = opts.filename ?? (file as File).name;
    if (!filename) throw new TypeError("upload: pass a File, or a Blob with opts.filename");
    const type = file.type || contentTypeOf(filename);
    const typed = file.type ? file : new Blob([file], { type });
    if (!opts.signed && file.size <= DIRECT_UPLOAD_MAX_BYTES) return this.uploadDirect(typed, filename, opts);
    return this.uploadSigned(typed, filename, opts);
  }

  private async uploadDirect(file: Blob, filename: string, opts: UploadOptions): Promise<Uploaded> {
    const fields: Record<string, string> = {};
    if (opts.datasetId) fields.dataset_id = opts.datasetId;
    else fields.dataset_name = opts.name ?? filename;
    if (opts.description) fields.description = opts.description;
    const body = multipartBody(fields, "file", file, filename, opts.onProgress);
    const r = await this.send<Schemas["DatasetUploadStarted"]>("POST", "/datasets", body, {
      Authorization: `Bearer ${this.opts.apiKey}`,
      "Idempotency-Key": opts.idempotencyKey ?? crypto.randomUUID(),
    });
    return { datasetId: r.dataset.id, versionId: r.dataset.version_id, versionNumber: r.dataset.version_number, jobId: r.job_id, method: "direct" };
  }

  private async uploadSigned(file: Blob, filename: string, opts: UploadOptions): Promise<Uploaded> {
    const prepared = await this.call(
      this.api.POST("/datasets/upload", {
        body: {
          ...(opts.datasetId ? { dataset_id: opts.datasetId } : { dataset_name: opts.name ?? filename }),
          ...(opts.description ? { description: opts.description } : {}),
          file: { filename, bytes: file.size, content_type: file.type },
        } as never,
        // Without one, the request gets a new key (src/repeat.ts).
        ...(opts.idempotencyKey ? { headers: { "Idempotency-Key": opts.idempotencyKey } } : {}),
      }),
    );
    const { upload, dataset, job_id } = prepared as Schemas["SignedUploadPrepared"];
    await this.send<unknown>(upload.method, upload.upload_url, blobBody(file, upload.headers["Content-Type"], opts.onProgress), {});
    let lost = false;
    const res = await this.postWithoutBody(`/datasets/${encodeURIComponent(dataset.version_id)}/complete`, () => {
      lost = true;
    });
    if (res.status === 409 && lost) {
      // A repeat found the upload completed by the attempt whose answer was lost.
      await res.body?.cancel();
      return { datasetId: dataset.id, versionId: dataset.version_id, versionNumber: dataset.version_number, jobId: job_id, method: "signed" };
    }
    if (!res.ok) throw await errorOf(res);
    const done = (await res.json()) as Schemas["UploadCompleted"];
    return {
      datasetId: done.dataset_id,
      versionId: done.dataset_version_id,
      versionNumber: dataset.version_number,
      jobId: done.job_id,
      method: "signed",
    };
  }

  /** A counted body to `url` (absolute, or a path of the service); 429s retried; JSON answer or null. */
  private async send<T>(method: string, url: string, body: CountedBody, headers: Record<string, string>): Promise<T> {
    const res = await this.sendRaw(method, url, body, headers);
    const text = await res.text();
    return (text && res.headers.get("Content-Type")?.includes("json") ? JSON.parse(text) : null) as T;
  }

  /** A POST without a body to a path of the service, with the retries; the answer as it came. */
  private postWithoutBody(path: string, onLost: OnLost): Promise<Response> {
    const make = () => new Request(this.base + path, { method: "POST", headers: { Authorization: `Bearer ${this.opts.apiKey}` } });
    return fetchRetrying(make, this.fetchImpl, this.opts.retry, onLost);
  }

  private async sendRaw(method: string, url: string, body: CountedBody, headers: Record<string, string>): Promise<Response> {
    const target = /^https?:/.test(url) ? url : this.base + url;
    const make = () =>
      new Request(target, {
        method,
        headers: { ...headers, "Content-Type": body.contentType, "Content-Length": String(body.length) },
        body: body.stream(),
        duplex: "half",
      } as RequestInit);
    const res = await fetchRetrying(make, this.bodyFetch, this.opts.retry);
    if (!res.ok) throw await errorOf(res);
    return res;
  }

  /**
   * Sync inference on a file (≤ 30 MB): `json` answers the predictions (`data` column by column),
   * `csv` and `parquet` the file's bytes.
   */
  async infer(
    modelId: string,
    file: Blob,
    opts: { filename?: string; outputType?: "json" | "csv" | "parquet"; modelVersionId?: string; onProgress?: OnBytes } = {},
  ) {
    const filename = opts.filename ?? (file as File).name ?? "rows.csv";
    const typed = file.type ? file : new Blob([file], { type: contentTypeOf(filename) });
    const fields: Record<string, string> = { output_type: opts.outputType ?? "json" };
    if (opts.modelVersionId) fields.model_version_id = opts.modelVersionId;
    const res = await this.sendRaw(
      "POST",
      `/models/${encodeURIComponent(modelId)}/infer`,
      multipartBody(fields, "file", typed, filename, opts.onProgress),
      {
        Authorization: `Bearer ${this.opts.apiKey}`,
      },
    );
    if ((opts.outputType ?? "json") === "json") return { kind: "json" as const, result: (await res.json()) as Schemas["SyncInferenceResult"] };
    return { kind: "file" as const, bytes: new Uint8Array(await res.arrayBuffer()), contentType: res.headers.get("Content-Type") ?? "" };
  }

  /** Poll a job until it ends: the succeeded job, or a JobFailedError carrying the failed / canceled one. */
  async waitForJob(id: string, opts: WaitOptions = {}): Promise<Job> {
    const deadline = opts.timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + opts.timeoutMs;
    for (;;) {
      opts.signal?.throwIfAborted();
      const job = await this.call(this.api.GET("/jobs/{job_id}", { params: { path: { job_id: id } } }));
      opts.onProgress?.(job);
      if (TERMINAL.has(job.status)) {
        if (job.status !== "succeeded") throw new JobFailedError(job);
        return job;
      }
      if (Date.now() >= deadline) throw new Error(`Job ${id} still ${job.status} after ${opts.timeoutMs} ms`);
      await sleep(opts.intervalMs ?? 1000);
    }
  }

  /**
   * Explain rows (their ids) of a succeeded inference job: starts the explanation job, waits for
   * it, and answers its `explanations`. Right after a sync inference the service may not have
   * recorded that job yet (it does so just after answering): a 404 is retried for up to ~10 s.
   */
  async explain(inferenceJobId: string, ids: (string | number)[], wait?: WaitOptions) {
    for (let attempt = 0; ; attempt++) {
      const { response } = await this.api.GET("/jobs/{job_id}", { params: { path: { job_id: inferenceJobId } } });
      if (response.status !== 404 || attempt >= 40) break;
      await sleep(250);
    }
    const started = await this.call(this.api.POST("/jobs/{job_id}/explain", { params: { path: { job_id: inferenceJobId } }, body: { ids } }));
    const job = await this.waitForJob(started.id, wait);
    return job.explanations ?? [];
  }

  /** Start training; `.wait()` follows the training job to its end. */
  async train(body: TrainRequest, opts: { idempotencyKey?: string } = {}) {
    const headers = opts.idempotencyKey ? { "idempotency-key": opts.idempotencyKey } : {};
    const started = await this.call(this.api.POST("/models/train", { body, params: { header: headers } as never }));
    return { ...started, wait: (w?: WaitOptions) => this.waitForJob(started.job_id, w) };
  }
}
