import { DurableObject } from "cloudflare:workers";
import { createDb, nowIso } from "../db/client";
import { creditsFor } from "../jobs/credits";
import { syncResourceStatus } from "../jobs/effects";
import { mirrorJob } from "../jobs/mirror";
import { capHistory } from "../jobs/metrics-history";
import { isTerminal, type JobRecord, type JobStatus, type JsonObject, type ProgressReport } from "../jobs/types";

/** How long a queued job may wait for a worker before its message is sent again. */
const QUEUE_PICKUP_TIMEOUT_MS = 10 * 60_000;
/** Re-sends of a lost queue message, and restarts of a worker that went silent. */
export const MAX_ATTEMPTS = 3;
/** Progress is mirrored to D1 at most this often; transitions are mirrored at once. */
const MIRROR_INTERVAL_MS = 1_000;

interface Internal {
  /** Deliveries that started the work; the watchdog gives up after MAX_ATTEMPTS. */
  attempts: number;
  /** Queue message being worked on, so that a redelivery of the same message can take over. */
  messageId: string | null;
  lastHeartbeatMs: number | null;
  queuedAtMs: number | null;
  dispatches: number;
  uploadExpiresAtMs: number | null;
  lastMirrorMs: number;
  rowsProcessed: number;
}

interface Stored {
  job: JobRecord;
  internal: Internal;
}

/** `job` is set when the delivery may start the work (RPC results are plain objects, no unions). */
export interface BeginResult {
  job: JobRecord | null;
  attempt: number;
  status: JobStatus | null;
}

/**
 * One Durable Object per job: the single writer of the job's state. Every transition goes
 * through here, is mirrored into D1 for listing, and updates the resource the job produces.
 * An alarm acts as watchdog: no job stays queued or running forever.
 */
export class JobDO extends DurableObject<Env> {
  private cache: Stored | null = null;

  private async load(): Promise<Stored | null> {
    this.cache ??= (await this.ctx.storage.get<Stored>("state")) ?? null;
    return this.cache;
  }

  private async save(s: Stored, opts: { mirror: "now" | "throttled" } = { mirror: "now" }): Promise<void> {
    s.job.updatedAt = nowIso();
    this.cache = s;
    await this.ctx.storage.put("state", s);
    const now = Date.now();
    if (opts.mirror === "now" || now - s.internal.lastMirrorMs >= MIRROR_INTERVAL_MS) {
      s.internal.lastMirrorMs = now;
      const db = createDb(this.env.DB);
      await mirrorJob(db, s.job);
      if (opts.mirror === "now") await syncResourceStatus(db, s.job);
    }
  }

  private heartbeatTimeoutMs(): number {
    const s = Number(this.env.JOB_HEARTBEAT_TIMEOUT_S);
    return (Number.isFinite(s) && s > 0 ? s : 120) * 1000;
  }

  /** Create the job. Idempotent: a second call returns the job as it is. */
  async create(job: JobRecord, opts: { uploadExpiresAtMs?: number } = {}): Promise<JobRecord> {
    const existing = await this.load();
    if (existing) return existing.job;
    const s: Stored = {
      job,
      internal: {
        attempts: 0,
        messageId: null,
        lastHeartbeatMs: null,
        queuedAtMs: job.status === "queued" ? Date.now() : null,
        dispatches: job.status === "queued" ? 1 : 0,
        uploadExpiresAtMs: opts.uploadExpiresAtMs ?? null,
        lastMirrorMs: 0,
        rowsProcessed: 0,
      },
    };
    await this.save(s);
    await this.scheduleWatchdog(s);
    return s.job;
  }

  async get(): Promise<JobRecord | null> {
    return (await this.load())?.job ?? null;
  }

  /** waiting_for_upload → queued, when the signed upload has been completed. */
  async markUploaded(): Promise<{ ok: boolean; status: JobStatus | null }> {
    const s = await this.load();
    if (!s || s.job.status !== "waiting_for_upload") return { ok: false, status: s?.job.status ?? null };
    s.job.status = "queued";
    s.internal.queuedAtMs = Date.now();
    s.internal.dispatches = 1;
    await this.save(s);
    await this.scheduleWatchdog(s);
    return { ok: true, status: s.job.status };
  }

  /**
   * A worker asks to start the job for a queue delivery. Only a queued job starts; a running job
   * is taken over only by a redelivery of the same message (the earlier attempt died). Anything
   * else is a duplicate delivery and does no work.
   */
  async begin(delivery: { messageId: string; attempt: number }): Promise<BeginResult> {
    const s = await this.load();
    if (!s) return { job: null, attempt: 0, status: null };
    const takeOver = s.job.status === "running" && s.internal.messageId === delivery.messageId;
    if (s.job.status !== "queued" && !takeOver) return { job: null, attempt: s.internal.attempts, status: s.job.status };
    s.job.status = "running";
    s.job.startedAt ??= nowIso();
    s.job.errorMessage = null;
    s.internal.attempts += 1;
    s.internal.messageId = delivery.messageId;
    s.internal.lastHeartbeatMs = Date.now();
    await this.save(s);
    await this.scheduleWatchdog(s);
    return { job: s.job, attempt: s.internal.attempts, status: s.job.status };
  }

  /** Progress from the worker; doubles as heartbeat. Answers whether the job was canceled. */
  async report(r: ProgressReport & { rows_processed?: number }): Promise<{ canceled: boolean; status: JobStatus | null }> {
    const s = await this.load();
    if (!s) return { canceled: true, status: null };
    if (s.job.status !== "running") return { canceled: s.job.status === "canceled", status: s.job.status };
    const j = s.job;
    if (r.progress !== undefined) j.progress = r.progress;
    if (r.current_step !== undefined) j.currentStep = r.current_step;
    if (r.total_steps !== undefined) j.totalSteps = r.total_steps;
    if (r.current_phase !== undefined) j.currentPhase = r.current_phase;
    if (r.metric) j.metricsHistory = capHistory([...(j.metricsHistory ?? []), r.metric]);
    if (r.rows_processed !== undefined) s.internal.rowsProcessed = r.rows_processed;
    s.internal.lastHeartbeatMs = Date.now();
    await this.save(s, { mirror: "throttled" });
    return { canceled: false, status: j.status };
  }

  /** running → succeeded. Refused (returns false) when the job was canceled meanwhile. */
  async succeed(output: JsonObject, rowsProcessed = 0): Promise<boolean> {
    const s = await this.load();
    if (!s || s.job.status !== "running") return false;
    s.job.status = "succeeded";
    s.job.output = output;
    s.job.progress = 100;
    this.finish(s, rowsProcessed);
    await this.save(s);
    await this.ctx.storage.deleteAlarm();
    return true;
  }

  /** Any non-terminal state → failed with a message for the user. */
  async fail(message: string): Promise<boolean> {
    const s = await this.load();
    if (!s || isTerminal(s.job.status)) return false;
    const ran = s.job.startedAt !== null;
    s.job.status = "failed";
    s.job.errorMessage = message;
    this.finish(s, s.internal.rowsProcessed, ran);
    await this.save(s);
    await this.ctx.storage.deleteAlarm();
    return true;
  }

  /** running → queued after a transient error; the queue redelivers the message. */
  async requeue(reason: string): Promise<boolean> {
    const s = await this.load();
    if (!s || s.job.status !== "running") return false;
    s.job.status = "queued";
    s.job.errorMessage = reason;
    s.internal.queuedAtMs = Date.now();
    s.internal.messageId = null;
    await this.save(s);
    await this.scheduleWatchdog(s);
    return true;
  }

  /** Best effort: a job not yet finished becomes canceled; its worker sees it at the next report. */
  async cancel(): Promise<{ ok: boolean; status: JobStatus | null }> {
    const s = await this.load();
    if (!s) return { ok: false, status: null };
    if (isTerminal(s.job.status)) return { ok: false, status: s.job.status };
    const ran = s.job.startedAt !== null;
    s.job.status = "canceled";
    this.finish(s, s.internal.rowsProcessed, ran);
    await this.save(s);
    await this.ctx.storage.deleteAlarm();
    return { ok: true, status: s.job.status };
  }

  private finish(s: Stored, rowsProcessed: number, ran = true): void {
    const finished = Date.now();
    s.job.finishedAt = new Date(finished).toISOString();
    const seconds = s.job.startedAt ? (finished - Date.parse(s.job.startedAt)) / 1000 : 0;
    s.job.creditsConsumed = ran ? creditsFor(rowsProcessed, seconds) : 0;
  }

  private async scheduleWatchdog(s: Stored): Promise<void> {
    const at = this.watchdogDeadline(s);
    if (at === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(at);
  }

  private watchdogDeadline(s: Stored): number | null {
    const i = s.internal;
    switch (s.job.status) {
      case "waiting_for_upload":
        return i.uploadExpiresAtMs;
      case "queued":
        return (i.queuedAtMs ?? Date.now()) + QUEUE_PICKUP_TIMEOUT_MS;
      case "running":
        return (i.lastHeartbeatMs ?? Date.now()) + this.heartbeatTimeoutMs();
      default:
        return null;
    }
  }

  /** The watchdog. Alarms may be delivered more than once: decide from the state alone. */
  async alarm(): Promise<void> {
    const s = await this.load();
    if (!s || isTerminal(s.job.status)) return;
    const deadline = this.watchdogDeadline(s);
    if (deadline === null) return;
    if (Date.now() < deadline) {
      await this.ctx.storage.setAlarm(deadline);
      return;
    }
    await this.onDeadline(s);
  }

  private async onDeadline(s: Stored): Promise<void> {
    const i = s.internal;
    if (s.job.status === "waiting_for_upload") {
      await this.fail("The upload was not completed before its signed URL expired. Prepare a new upload.");
    } else if (s.job.status === "queued") {
      if (i.dispatches >= MAX_ATTEMPTS) {
        await this.fail(`No worker picked up the job after ${i.dispatches} dispatches. Retry the job.`);
        return;
      }
      await this.redispatch(s);
    } else if (s.job.status === "running") {
      const silentS = Math.round(this.heartbeatTimeoutMs() / 1000);
      if (i.attempts >= MAX_ATTEMPTS) {
        await this.fail(`The worker stopped reporting for ${silentS} s on attempt ${i.attempts} of ${MAX_ATTEMPTS}.`);
        return;
      }
      s.job.status = "queued";
      s.job.errorMessage = `The worker stopped reporting for ${silentS} s; restarting.`;
      i.messageId = null;
      await this.redispatch(s);
    }
  }

  private async redispatch(s: Stored): Promise<void> {
    s.internal.queuedAtMs = Date.now();
    s.internal.dispatches += 1;
    await this.save(s);
    await this.env.JOBS_QUEUE.send({ job_id: s.job.id });
    await this.scheduleWatchdog(s);
  }
}
