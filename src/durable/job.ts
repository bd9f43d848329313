import { DurableObject } from "cloudflare:workers";
import { createDb, nowIso } from "../db/client";
import {
  type Failure,
  HAND_BACK_REDELIVERY_DELAY_S,
  onWatchdogDeadline,
  onWorkerLost,
  type SettledFailure,
  settleFailure,
  type WatchdogAction,
} from "../jobs/attempts";
import { creditsFor } from "../jobs/credits";
import { syncResourceStatus } from "../jobs/effects";
import type { BeginResult, JobObject, TrialView } from "../jobs/job-object";
import { capHistory } from "../jobs/metrics-history";
import { mirrorJob } from "../jobs/mirror";
import { isTerminal, type JobRecord, type JobStatus, type JsonObject, type ProgressReport, usesTrials } from "../jobs/types";
import { deletePrefix, searchFilesPrefix } from "../storage/keys";
import { logJobEnd } from "./job-log";
import { countedAttempts, MIRROR_INTERVAL_MS, newInternal, nextAlarm, type Stored, watchdogDeadline } from "./job-state";
import { SearchTrials } from "./trials";

/**
 * One Durable Object per job: the single writer of the job's state. Every transition is saved
 * here first, then mirrored into D1 for listing together with the status of the resource the job
 * produces; a mirror that fails is retried by the alarm, and D1 only ever moves forward
 * (revisions), so lists never stay behind or go back. The same alarm is the watchdog: no job
 * stays queued or running forever.
 */
export class JobDO extends DurableObject<Env> implements JobObject {
  private cache: Stored | null = null;

  private async load(): Promise<Stored | null> {
    this.cache ??= (await this.ctx.storage.get<Stored>("state")) ?? null;
    return this.cache;
  }

  private async save(s: Stored, mirror: "now" | "throttled" = "now"): Promise<void> {
    s.job.updatedAt = nowIso();
    s.internal.revision += 1;
    this.cache = s;
    await this.ctx.storage.put("state", s);
    const now = Date.now();
    if (mirror === "now" || s.internal.mirrorPending || now - s.internal.lastMirrorMs >= MIRROR_INTERVAL_MS) {
      s.internal.lastMirrorMs = now;
      await this.mirror(s, mirror === "now" || s.internal.mirrorPending);
    }
  }

  /** Copy the job to D1 (and the resource's status on transitions); on failure, retry later. */
  private async mirror(s: Stored, withResource: boolean): Promise<void> {
    try {
      const db = createDb(this.env.DB);
      await mirrorJob(db, s.job, s.internal.revision);
      if (withResource) await syncResourceStatus(db, s.job);
      // an attempt that died (or was superseded) never closed its search: its files go with the job
      // (only a job that can have them lists the bucket: most jobs end with no search)
      if (withResource && isTerminal(s.job.status) && usesTrials(s.job.type))
        await deletePrefix(this.env.BUCKET, searchFilesPrefix(s.job.orgId, s.job.id));
      if (s.internal.mirrorPending) {
        s.internal.mirrorPending = false;
        await this.ctx.storage.put("state", s);
      }
    } catch (e) {
      console.error(`mirroring job ${s.job.id} to D1 failed; the alarm retries it`, e);
      if (!s.internal.mirrorPending) {
        s.internal.mirrorPending = true;
        await this.ctx.storage.put("state", s);
      }
      await this.scheduleAlarm(s);
    }
  }

  private heartbeatTimeoutMs(): number {
    const s = Number(this.env.JOB_HEARTBEAT_TIMEOUT_S);
    return (Number.isFinite(s) && s > 0 ? s : 120) * 1000;
  }

  private async scheduleAlarm(s: Stored): Promise<void> {
    const at = nextAlarm(s, this.heartbeatTimeoutMs());
    if (at === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(at);
  }

  /** A call from a worker whose attempt was superseded (restarted by the watchdog) is refused. */
  private stale(s: Stored, attempt: number | undefined): boolean {
    return attempt !== undefined && attempt !== s.internal.attempts;
  }

  /** Create the job. Idempotent: a second call returns the job as it is. */
  async create(job: JobRecord, opts: { uploadExpiresAtMs?: number } = {}): Promise<JobRecord> {
    const existing = await this.load();
    if (existing) return existing.job;
    const s: Stored = { job, internal: newInternal(job, opts.uploadExpiresAtMs ?? null) };
    // The watchdog is armed before anything can fail, so even a job whose first mirror failed
    // is looked after.
    await this.scheduleAlarm(s);
    await this.save(s);
    return s.job;
  }

  async get(): Promise<JobRecord | null> {
    return (await this.load())?.job ?? null;
  }

  /** waiting_for_upload → queued, when the signed upload has been completed. */
  async markUploaded(): Promise<{ ok: boolean; status: JobStatus | null }> {
    const s = await this.load();
    if (s?.job.status !== "waiting_for_upload") return { ok: false, status: s?.job.status ?? null };
    s.job.status = "queued";
    s.internal.queuedAtMs = Date.now();
    s.internal.dispatches = 1;
    await this.save(s);
    await this.scheduleAlarm(s);
    return { ok: true, status: s.job.status };
  }

  /**
   * A worker asks to start the job for a queue delivery. Only a queued job starts; a running job
   * is taken over only by a redelivery of the same message (the earlier attempt died). Anything
   * else is a duplicate delivery and does no work.
   */
  async begin(delivery: { messageId: string }): Promise<BeginResult> {
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
    await this.scheduleAlarm(s);
    return { job: s.job, attempt: s.internal.attempts, status: s.job.status };
  }

  /** Progress from the worker; doubles as heartbeat. Answers whether the worker must stop. */
  async report(r: ProgressReport & { rows_processed?: number }, attempt?: number): Promise<{ canceled: boolean; status: JobStatus | null }> {
    const s = await this.load();
    if (!s) return { canceled: true, status: null };
    if (s.job.status !== "running" || this.stale(s, attempt)) return { canceled: true, status: s.job.status };
    const j = s.job;
    if (r.progress !== undefined) j.progress = r.progress;
    if (r.current_step !== undefined) j.currentStep = r.current_step;
    if (r.total_steps !== undefined) j.totalSteps = r.total_steps;
    if (r.current_phase !== undefined) j.currentPhase = r.current_phase;
    const points = [...(r.metric ? [r.metric] : []), ...(r.metrics ?? [])];
    if (points.length) j.metricsHistory = capHistory([...(j.metricsHistory ?? []), ...points]);
    if (r.rows_processed !== undefined) s.internal.rowsProcessed = r.rows_processed;
    s.internal.lastHeartbeatMs = Date.now();
    await this.save(s, "throttled");
    return { canceled: false, status: j.status };
  }

  /** running → succeeded. Refused (false) when the job was canceled or restarted meanwhile. */
  async succeed(output: JsonObject, rowsProcessed = 0, attempt?: number): Promise<boolean> {
    const s = await this.load();
    if (s?.job.status !== "running" || this.stale(s, attempt)) return false;
    s.job.status = "succeeded";
    s.job.output = output;
    s.job.progress = 100;
    this.finish(s, rowsProcessed);
    await this.save(s);
    await this.scheduleAlarm(s);
    return true;
  }

  /** Any non-terminal state → failed with a message for the user. */
  async fail(message: string, attempt?: number): Promise<boolean> {
    const s = await this.load();
    if (!s || isTerminal(s.job.status) || this.stale(s, attempt)) return false;
    const ran = s.job.startedAt !== null;
    s.job.status = "failed";
    s.job.errorMessage = message;
    this.finish(s, s.internal.rowsProcessed, ran);
    await this.save(s);
    await this.scheduleAlarm(s);
    return true;
  }

  /** running → queued after a transient error; the queue redelivers the message. */
  async requeue(reason: string, attempt?: number): Promise<boolean> {
    const s = await this.load();
    if (s?.job.status !== "running" || this.stale(s, attempt)) return false;
    s.job.status = "queued";
    s.job.errorMessage = reason;
    s.internal.queuedAtMs = Date.now();
    s.internal.messageId = null;
    await this.save(s);
    await this.scheduleAlarm(s);
    return true;
  }

  /** A failed attempt, settled on the attempts that count (hand-backs are not failures). */
  async failAttempt(attempt: number, f: Failure): Promise<SettledFailure> {
    const s = await this.load();
    if (!s || this.stale(s, attempt)) return { ok: false, retryInSeconds: null };
    const next = settleFailure(countedAttempts(s.internal), f);
    if (next.action === "fail") return { ok: await this.fail(next.message, attempt), retryInSeconds: null };
    return { ok: await this.requeue(next.reason, attempt), retryInSeconds: next.delaySeconds };
  }

  /**
   * running → queued, sent again at once: the trainer running this attempt is stopping and hands
   * it back. Not a failure: the attempt is not counted, and no dispatch is spent (the watchdog's
   * count of sends nobody picked up).
   */
  async handBack(reason: string, attempt: number): Promise<boolean> {
    const s = await this.load();
    if (s?.job.status !== "running" || this.stale(s, attempt)) return false;
    s.job.status = "queued";
    s.job.errorMessage = `${reason}; restarting.`;
    s.internal.messageId = null;
    s.internal.handedBack = (s.internal.handedBack ?? 0) + 1;
    s.internal.queuedAtMs = Date.now();
    await this.save(s);
    await this.env.JOBS_QUEUE.send({ job_id: s.job.id }, { delaySeconds: HAND_BACK_REDELIVERY_DELAY_S });
    await this.scheduleAlarm(s);
    return true;
  }

  // ── The trials of the job's model search, or the parts of its batch (./trials), for its current attempt while it runs ──

  private async search(attempt: number): Promise<SearchTrials | null> {
    const s = await this.load();
    if (s?.job.status !== "running" || this.stale(s, attempt)) return null;
    return new SearchTrials(this.ctx.storage, this.env.JOBS_QUEUE, s.job.id);
  }

  /** Sends a trial to the queue; false when the job no longer runs for this attempt. */
  async startTrial(attempt: number, trial: number, slot: number, spec: JsonObject): Promise<boolean> {
    const search = await this.search(attempt);
    await search?.start(attempt, trial, slot, spec);
    return search !== null;
  }

  /** A delivery of a trial's message for its send `run`: its spec when it is to run now (`spec: null`: a duplicate, an earlier send's, or it no longer runs). */
  async beginTrial(attempt: number, trial: number, run: number): Promise<{ spec: JsonObject | null; slot: number }> {
    const begun = await (await this.search(attempt))?.begin(attempt, trial, run);
    return begun ?? { spec: null, slot: 0 };
  }

  async trialUndispatched(attempt: number, trial: number, run: number): Promise<void> {
    await (await this.search(attempt))?.undispatched(attempt, trial, run);
  }

  /** A trial's instance, running send `run`, is alive (`done`: a batch part's rows done); false: it must stop (the job, the trial or that send no longer runs). */
  async trialBeat(attempt: number, trial: number, run: number, done?: number): Promise<boolean> {
    return (await (await this.search(attempt))?.beat(attempt, trial, run, done)) ?? false;
  }

  /** A stopping instance hands its trial back: sent again at once (durable/trials.ts); false when it no longer runs. */
  async handBackTrial(attempt: number, trial: number, run: number): Promise<boolean> {
    return (await (await this.search(attempt))?.handBack(attempt, trial, run)) ?? false;
  }

  /** Send `run` of a trial ended (done or failed); false when that send no longer runs. */
  async settleTrial(attempt: number, trial: number, run: number, status: "done" | "failed", message: string | null): Promise<boolean> {
    return (await (await this.search(attempt))?.settle(attempt, trial, run, status, message)) ?? false;
  }

  /** The search's trials (the coordinator's poll, and the trials' watchdog); null when the job no longer runs for this attempt. */
  async listTrials(attempt: number): Promise<TrialView[] | null> {
    return (await (await this.search(attempt))?.list(attempt)) ?? null;
  }

  /** The search is over: trials still queued or running are canceled. */
  async closeSearch(attempt: number): Promise<number> {
    return (await (await this.search(attempt))?.cancelAll(attempt)) ?? 0;
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
    await this.scheduleAlarm(s);
    return { ok: true, status: s.job.status };
  }

  private finish(s: Stored, rowsProcessed: number, ran = true): void {
    const finished = Date.now();
    s.job.finishedAt = new Date(finished).toISOString();
    const seconds = s.job.startedAt ? (finished - Date.parse(s.job.startedAt)) / 1000 : 0;
    s.job.creditsConsumed = ran ? creditsFor(rowsProcessed, seconds) : 0;
    logJobEnd(this.env.METRICS, s, Math.round(seconds * 1000));
  }

  /** Mirror retry and watchdog. Alarms may be delivered more than once: decide from the state. */
  async alarm(): Promise<void> {
    const s = await this.load();
    if (!s) return;
    if (s.internal.mirrorPending) await this.mirror(s, true);
    const deadline = isTerminal(s.job.status) ? null : watchdogDeadline(s, this.heartbeatTimeoutMs());
    if (deadline !== null && Date.now() >= deadline) await this.onDeadline(s);
    else await this.scheduleAlarm(s);
  }

  async workerLost(reason: string): Promise<boolean> {
    const s = await this.load();
    if (s?.job.status !== "running") return false;
    await this.act(s, onWorkerLost(countedAttempts(s.internal), reason));
    return true;
  }

  private async onDeadline(s: Stored): Promise<void> {
    const silentS = Math.round(this.heartbeatTimeoutMs() / 1000);
    await this.act(s, onWatchdogDeadline(s.job.status, { dispatches: s.internal.dispatches, attempts: countedAttempts(s.internal) }, silentS));
  }

  private async act(s: Stored, next: WatchdogAction): Promise<void> {
    if (next.action === "fail") {
      await this.fail(next.message);
    } else if (next.action === "redispatch") {
      if (s.job.status === "running") {
        s.job.status = "queued";
        s.job.errorMessage = next.note;
        s.internal.messageId = null;
      }
      await this.redispatch(s);
    }
  }

  private async redispatch(s: Stored): Promise<void> {
    s.internal.queuedAtMs = Date.now();
    s.internal.dispatches += 1;
    await this.save(s);
    await this.env.JOBS_QUEUE.send({ job_id: s.job.id });
    await this.scheduleAlarm(s);
  }
}
