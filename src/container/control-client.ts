/**
 * The trainer's side of the internal control routes. Every call names the job and the attempt
 * token; a 409 means the job was canceled or taken over, and surfaces as JobCanceledError so the
 * run stops. Network errors are retried a few times: a blip must not cost a long training. The
 * bulk bytes (source files, frame parts, the frame a job reads) go straight to and from R2 when
 * the Worker hands out presigned URLs for them (production, `npm start`), else through the routes.
 */
import type { z } from "zod";
import { FAILURE_MESSAGE_MAX_CHARS } from "../core/limits";
import type { ResultSink } from "../inference/results";
import { decodeFrame } from "../ingest/columnar";
import { JobCanceledError } from "../jobs/errors";
import { resultFileName, resultPageName } from "../storage/keys";
import { bodyBytes } from "./body-bytes";
import { fetchRetrying, s3Refusal } from "./http-retry";
import { log, logWarning } from "./log";
import type { TrainingIO, TrainingReport } from "./training-io";
import {
  type AnsweringRoute,
  type AnswerOf,
  type AssignedTask,
  type BodyOf,
  CONTROL_ROUTES,
  type ControlRoute,
  type JsonRoute,
  type UploadedPart,
} from "./wire";

export interface ControlConfig {
  /** Base address of the Worker's control routes (http://control.internal in the container). */
  baseUrl: string;
  /** The internal secret; absent in the container, whose outbound calls the Worker authenticates. */
  secret?: string;
}

export class ControlClient {
  constructor(
    readonly config: ControlConfig,
    readonly jobId: string,
    readonly attempt: number,
  ) {}

  /** One control call; `params` fill the route's path (`artifacts/{file}`). A 409 means the job no longer runs for this attempt. */
  private async call(
    route: ControlRoute,
    opts: {
      params?: Record<string, string | number>;
      body?: BodyInit;
      contentType?: string;
      query?: Record<string, string>;
      headers?: Record<string, string>;
    } = {},
  ): Promise<Response> {
    const { method, path: template } = CONTROL_ROUTES[route];
    const path = template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(opts.params?.[name])));
    const url = new URL(`/internal/jobs/${this.jobId}/${path}`, this.config.baseUrl);
    if (method !== "post") url.searchParams.set("attempt", String(this.attempt));
    for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, v);
    const headers: Record<string, string> = { ...opts.headers };
    if (this.config.secret) headers.Authorization = `Bearer ${this.config.secret}`;
    if (opts.contentType) headers["Content-Type"] = opts.contentType;
    const verb = method.toUpperCase();
    const res = await fetchRetrying(`control ${verb} ${path}`, url, { method: verb, headers, body: opts.body });
    if (res.status === 409) throw new JobCanceledError();
    return res;
  }

  /** A JSON call: a POST's body typed by its route (the attempt added here), the answer read with the route's schema. */
  private json<R extends AnsweringRoute>(route: R, ...body: R extends JsonRoute ? [BodyOf<R>] : []): Promise<AnswerOf<R>> {
    return this.jsonAt(route, {}, ...body);
  }

  /** A JSON call on a route with parameters in its path (`search/trials/{trial}/beat`). */
  private async jsonAt<R extends AnsweringRoute>(
    route: R,
    params: Record<string, string | number>,
    ...body: R extends JsonRoute ? [BodyOf<R>] : []
  ): Promise<AnswerOf<R>> {
    const spec = CONTROL_ROUTES[route] as { method: string; path: string; answer: z.ZodType };
    const payload = body.length ? JSON.stringify({ attempt: this.attempt, ...body[0] }) : undefined;
    const res = await this.call(route, { params, body: payload, contentType: payload ? "application/json" : undefined });
    const what = `control ${spec.method.toUpperCase()} ${spec.path}`;
    if (!res.ok) throw new Error(`${what}: HTTP ${res.status} ${(await res.text()).slice(0, 300)}`);
    const parsed = spec.answer.safeParse(await res.json());
    if (!parsed.success) throw new Error(`${what}: unexpected answer (${parsed.error.issues[0]?.message})`);
    return parsed.data as AnswerOf<R>;
  }

  async task(): Promise<AssignedTask> {
    return this.json("task");
  }

  /** One of the model version's artifact files (batch inference), or null when it is not stored. */
  async readArtifact(file: string): Promise<Uint8Array | null> {
    const res = await this.call("readArtifact", { params: { file } });
    if (res.status === 404) return null;
    if (!res.ok) throw new Error(`could not read ${file}: HTTP ${res.status}`);
    return new Uint8Array(await res.arrayBuffer());
  }

  /**
   * An ingest job's uploaded file `index`, as a stream: straight from R2 when the task gave its
   * presigned `url`, else through the control route.
   */
  async openSource(index: number, url?: string): Promise<ReadableStream<Uint8Array>> {
    if (url) {
      const res = await r2Get(url, `uploaded file ${index}`);
      log(`job ${this.jobId}: reading uploaded file ${index} straight from R2`, { job_id: this.jobId, attempt: this.attempt });
      return res.body!;
    }
    const res = await this.call("readSource", { params: { index } });
    if (!res.ok || !res.body) throw new Error(`could not read uploaded file ${index}: HTTP ${res.status}`);
    return res.body;
  }

  /**
   * Bytes [start, endExclusive) of uploaded file `index` (a Parquet file's footer, read before the
   * file is streamed): a Range request, to R2 when the task gave the file's presigned `url` (the
   * signature does not cover the Range header), else to the control route.
   */
  async readSourceRange(index: number, start: number, endExclusive: number, url?: string): Promise<Uint8Array> {
    const range = { Range: `bytes=${start}-${endExclusive - 1}` };
    const what = `bytes ${start}–${endExclusive} of uploaded file ${index}`;
    const res = url ? await r2Get(url, what, range) : await this.call("readSource", { params: { index }, headers: range });
    if (res.status !== 206) {
      // 200 would be the whole file: a server that ignored the range, not to be read for a footer
      await res.body?.cancel().catch(() => {});
      throw new Error(`could not read ${what}: HTTP ${res.status}${res.status === 200 ? " (the range was ignored)" : ""}`);
    }
    log(`job ${this.jobId}: read ${what} by range ${url ? "straight from R2" : "through the control route"}`, {
      job_id: this.jobId,
      attempt: this.attempt,
    });
    return new Uint8Array(await res.arrayBuffer());
  }

  /**
   * Begins storing an ingest's frame as an R2 multipart upload (the control routes begin and
   * complete it); its id. The frame's length is not known yet: it is written as the file is read
   * (./frame-stream-thread), and its parts are signed one at a time (putFramePart).
   */
  async beginFrameUpload(): Promise<string> {
    const { upload_id } = await this.json("beginFrameUpload", {});
    return upload_id;
  }

  /**
   * Part `n` of the frame: straight to R2 at a URL the Worker signs for it when it has the S3
   * API, else through the control route; retried alone (network errors, 5xx). Its ETag, and
   * whether it went straight to R2.
   */
  async putFramePart(uploadId: string, n: number, bytes: Uint8Array): Promise<{ part: UploadedPart; straight: boolean }> {
    const { url } = await this.json("signFramePart", {
      upload_id: uploadId,
      part_number: n,
      bytes: bytes.byteLength,
    });
    if (url) return { part: { part_number: n, etag: await r2PutPart(url, n, bytes) }, straight: true };
    const res = await this.call("writeFramePart", {
      params: { part: n },
      body: bytes,
      contentType: "application/octet-stream",
      query: { upload_id: uploadId },
    });
    if (!res.ok) throw new Error(`could not store part ${n} of the frame: HTTP ${res.status} ${(await res.text()).slice(0, 300)}`);
    return { part: CONTROL_ROUTES.writeFramePart.answer.parse(await res.json()), straight: false };
  }

  /** Joins the parts (numbered 1..n, in order) into the frame of `bytes` bytes. */
  async completeFrameUpload(uploadId: string, parts: UploadedPart[], bytes: number): Promise<void> {
    await this.json("completeFrameUpload", { upload_id: uploadId, parts, bytes });
  }

  /** Drops the upload's parts (best effort: a failure is logged, not thrown). */
  async abortFrameUpload(uploadId: string): Promise<void> {
    await this.json("abortFrameUpload", { upload_id: uploadId }).catch((err) =>
      logWarning(`could not abort the frame upload: ${err}`, { job_id: this.jobId, attempt: this.attempt }),
    );
  }

  /** Stores an ingest's preview (its first rows, small: one request, retried like the others). */
  async putPreview(bytes: Uint8Array): Promise<void> {
    const res = await this.call("writePreview", { body: bytes, contentType: "application/octet-stream" });
    if (!res.ok) throw new Error(`could not store the preview: HTTP ${res.status} ${(await res.text()).slice(0, 300)}`);
  }

  /** Where a batch inference's result files go. */
  resultSink(): ResultSink {
    const put = async (name: string, body: BodyInit, contentType: string) => {
      const res = await this.call("writeResult", { params: { file: name }, body, contentType });
      if (!res.ok) throw new Error(`could not store ${name}: HTTP ${res.status}`);
    };
    return {
      putPage: (page, json) => put(resultPageName(page), json, "application/json"),
      putPages: async (first, pages) => {
        const res = await this.call("writeResultPages", { params: { first }, body: pages.join("\n"), contentType: "application/x-ndjson" });
        if (!res.ok) throw new Error(`could not store result pages ${first}–${first + pages.length - 1}: HTTP ${res.status}`);
      },
      putFile: (format, body, contentType) => put(resultFileName(format), body, contentType),
    };
  }

  async succeed(output: Record<string, unknown>): Promise<void> {
    await this.json("succeed", { output });
  }

  async fail(message: string, permanent: boolean): Promise<void> {
    await this.json("fail", { message: message.slice(0, FAILURE_MESSAGE_MAX_CHARS), permanent });
  }

  /** The trainer is stopping before this attempt finished: the job is queued again at once (not a failed attempt). Whether the Worker took it. */
  async handBack(reason: string): Promise<boolean> {
    const { ok } = await this.json("handBack", { reason });
    return ok;
  }

  // ── A model search's trials on several instances (./trial-pool, ./trial-runner) ──

  /** Stores the search's rows for the trials' instances. */
  async writeSearchData(bytes: Uint8Array): Promise<void> {
    const res = await this.call("writeSearchData", { body: bytes, contentType: "application/octet-stream" });
    if (!res.ok) throw new Error(`could not store the search's rows: HTTP ${res.status} ${(await res.text()).slice(0, 300)}`);
  }

  async readSearchData(): Promise<Uint8Array> {
    const res = await this.call("readSearchData");
    if (!res.ok) throw new Error(`could not read the search's rows: HTTP ${res.status}`);
    return bodyBytes(res);
  }

  async startTrial(trial: number, slot: number, spec: Record<string, unknown>): Promise<void> {
    await this.json("startTrial", { trial, slot, spec });
  }

  listTrials() {
    return this.json("listTrials");
  }

  async closeSearch(): Promise<void> {
    await this.json("closeSearch", {});
  }

  // `run`: the send of the trial this instance runs (its TrialAssignment's), carried by each call.

  /** The trial's instance is alive (`done`: a batch part's rows done); true when the trial must stop. */
  async trialBeat(trial: number, run: number, done?: number): Promise<boolean> {
    return (await this.jsonAt("trialBeat", { trial }, done === undefined ? { run } : { run, done })).stop;
  }

  /** This instance is stopping before the trial ended: the trial is sent again at once. Whether the Worker took it. */
  async handBackTrial(trial: number, run: number): Promise<boolean> {
    return (await this.jsonAt("handBackTrial", { trial }, { run })).ok;
  }

  async failTrial(trial: number, run: number, message: string): Promise<void> {
    await this.jsonAt("failTrial", { trial }, { run, message: message.slice(0, FAILURE_MESSAGE_MAX_CHARS) });
  }

  async writeTrialOutcome(trial: number, run: number, bytes: Uint8Array): Promise<void> {
    const res = await this.call("writeTrialOutcome", {
      params: { trial },
      query: { run: String(run) },
      body: bytes,
      contentType: "application/octet-stream",
    });
    if (!res.ok) throw new Error(`could not store trial ${trial}'s outcome: HTTP ${res.status} ${(await res.text()).slice(0, 300)}`);
  }

  async readTrialOutcome(trial: number): Promise<Uint8Array> {
    const res = await this.call("readTrialOutcome", { params: { trial } });
    if (!res.ok) throw new Error(`could not read trial ${trial}'s outcome: HTTP ${res.status}`);
    return bodyBytes(res);
  }

  /** The TrainingIO of the runner, over HTTP. */
  io(): TrainingIO {
    return {
      loadFrame: async (opts) => {
        // straight from R2 when the Worker hands out a presigned URL, else through the route
        const { url } = await this.json("frameLocation");
        const res = url ? await r2Get(url, "the job's data") : await this.call("frame");
        if (!res.ok) throw new Error(`could not read the job's data: HTTP ${res.status}`);
        if (url) log(`job ${this.jobId}: reading the frame straight from R2`, { job_id: this.jobId, attempt: this.attempt });
        // not res.arrayBuffer(): it holds a large frame about three times over (./body-bytes)
        return decodeFrame(await bodyBytes(res), opts);
      },
      loadRepresentation: async () => {
        const res = await this.call("readRepresentation");
        if (res.status === 404) return null;
        if (!res.ok) throw new Error(`could not read the representation: HTTP ${res.status}`);
        return res.text();
      },
      saveRepresentation: async (json) => {
        const res = await this.call("writeRepresentation", { body: json, contentType: "application/json" });
        if (!res.ok) throw new Error(`could not store the representation: HTTP ${res.status}`);
      },
      saveArtifact: async (file, bytes) => {
        const res = await this.call("writeArtifact", { params: { file }, body: bytes, contentType: "application/octet-stream" });
        if (!res.ok) throw new Error(`could not store ${file}: HTTP ${res.status}`);
      },
      report: async (r: TrainingReport) => {
        const { canceled } = await this.json("report", r);
        if (canceled) throw new JobCanceledError();
      },
    };
  }
}

/** A presigned GET straight from R2 (retried on network errors and 5xx), or an error naming R2's refusal. */
async function r2Get(url: string, what: string, headers: Record<string, string> = {}): Promise<Response> {
  const res = await fetchRetrying(`GET ${what} from R2`, url, { headers });
  if (!res.ok || !res.body) throw new Error(`could not read ${what} from R2: ${await s3Refusal(res)}`);
  return res;
}

/** PUTs part `n` of the frame to its presigned UploadPart URL; its ETag (as R2 answers it, quoted). */
async function r2PutPart(url: string, n: number, bytes: Uint8Array): Promise<string> {
  const res = await fetchRetrying(`PUT part ${n} of the frame to R2`, url, { method: "PUT", body: bytes });
  if (!res.ok) throw new Error(`R2 refused part ${n} of the frame (${bytes.byteLength} bytes): ${await s3Refusal(res)}`);
  await res.body?.cancel().catch(() => {});
  const etag = res.headers.get("etag");
  if (!etag) throw new Error(`R2 stored part ${n} of the frame but answered no ETag`);
  return etag;
}
