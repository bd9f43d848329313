/**
 * The trials of a job's model search, kept by the job's object (./job): sent to the queue, begun
 * by the instance that runs each, kept alive by its reports, settled, or canceled when the search
 * closes. The search's coordinator polls the list, and each poll is also the trials' watchdog: a
 * trial whose instance died is sent again, then failed alone (./trial-state). The job's object
 * calls this only for a running job and its current attempt. A batch inference cut into row
 * ranges (../container/batch-parts) keeps its parts here the same way: a part is a "trial" whose
 * spec is its range, and whose reports say how many of its rows are done.
 */
import type { TrialView } from "../jobs/job-object";
import type { JsonObject } from "../jobs/types";
import { currentRun, onTrialDeadline, type TrialState, trialKey, trialPrefix } from "./trial-state";

export class SearchTrials {
  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly queue: Queue,
    private readonly jobId: string,
  ) {}

  private async load(attempt: number, trial: number): Promise<TrialState | null> {
    return (await this.storage.get<TrialState>(trialKey(attempt, trial))) ?? null;
  }

  private put(attempt: number, t: TrialState): Promise<void> {
    return this.storage.put(trialKey(attempt, t.trial), t);
  }

  private async send(attempt: number, t: TrialState): Promise<void> {
    t.status = "queued";
    t.run = currentRun(t) + 1;
    t.sends += 1;
    t.sentAtMs = Date.now();
    t.beatAtMs = null;
    // sent again, it starts over: none of its work counts as done
    delete t.done;
    await this.put(attempt, t);
    // the queue's trial message (queue/messages.ts: trialMessageSchema, which the consumer reads it with)
    await this.queue.send({ job_id: this.jobId, attempt, trial: t.trial, run: t.run });
  }

  /** Sends a trial; a trial already sent is left as it is (a retried call). */
  async start(attempt: number, trial: number, slot: number, spec: JsonObject): Promise<void> {
    if (await this.load(attempt, trial)) return;
    await this.send(attempt, { trial, spec, slot, status: "queued", sends: 0, sentAtMs: 0, beatAtMs: null, message: null });
  }

  /**
   * A delivery of the trial's message for send `run`: its spec and slot when it is to run now
   * (queued, and this is its current send), else null (a duplicate, an earlier send's message, or canceled).
   */
  async begin(attempt: number, trial: number, run: number): Promise<{ spec: JsonObject; slot: number } | null> {
    const t = await this.load(attempt, trial);
    if (t?.status !== "queued" || currentRun(t) !== run) return null;
    t.status = "running";
    t.beatAtMs = Date.now();
    await this.put(attempt, t);
    return { spec: t.spec, slot: t.slot };
  }

  /** The delivery could not hand the trial to an instance: queued again (the queue retries it). */
  async undispatched(attempt: number, trial: number, run: number): Promise<void> {
    const t = await this.load(attempt, trial);
    if (!this.runs(t, run)) return;
    t.status = "queued";
    await this.put(attempt, t);
  }

  /** Whether `t` runs as send `run`: the calls of an earlier send's instance are refused. */
  private runs(t: TrialState | null, run: number): t is TrialState {
    return t?.status === "running" && currentRun(t) === run;
  }

  /** The instance running send `run` of the trial is alive (`done`: units of its work done so far); false: that send no longer runs (canceled, or sent again). */
  async beat(attempt: number, trial: number, run: number, done?: number): Promise<boolean> {
    const t = await this.load(attempt, trial);
    if (!this.runs(t, run)) return false;
    t.beatAtMs = Date.now();
    if (done !== undefined) t.done = done;
    await this.put(attempt, t);
    return true;
  }

  /**
   * The instance running the trial is stopping (SIGTERM: a rollout, a scale-in): sent again at
   * once, and this send is not counted against the trial (as a job's hand back is not a failed
   * attempt). Locally another trainer process takes it; a container slot's instance refuses it
   * (503) while it drains and the queue retries it until the slot's container has restarted:
   * either way sooner than the trial's heartbeat timeout. False when it no longer runs.
   */
  async handBack(attempt: number, trial: number, run: number): Promise<boolean> {
    const t = await this.load(attempt, trial);
    if (!this.runs(t, run)) return false;
    t.sends -= 1;
    await this.send(attempt, t);
    return true;
  }

  /**
   * The trial ended: its outcome is stored (done), or it failed with a message. `run`: the send
   * that ended (an earlier send's end is refused); null: whichever runs (the watchdog's verdict).
   */
  async settle(attempt: number, trial: number, run: number | null, status: "done" | "failed", message: string | null = null): Promise<boolean> {
    const t = await this.load(attempt, trial);
    if (!t || t.status === "done" || t.status === "failed" || t.status === "canceled") return false;
    if (run !== null && currentRun(t) !== run) return false;
    t.status = status;
    t.message = message;
    await this.put(attempt, t);
    return true;
  }

  /** Every trial of the attempt's search; those whose instance died are sent again or failed first. */
  async list(attempt: number): Promise<TrialView[]> {
    const stored = await this.storage.list<TrialState>({ prefix: trialPrefix(attempt) });
    const now = Date.now();
    const out: TrialView[] = [];
    for (const t of stored.values()) {
      const next = onTrialDeadline(t, now);
      if (next.action === "resend") await this.send(attempt, t);
      else if (next.action === "fail") await this.settle(attempt, t.trial, null, "failed", next.message);
      const current = next.action === "wait" ? t : ((await this.load(attempt, t.trial)) ?? t);
      out.push({
        trial: current.trial,
        status: current.status,
        message: current.message,
        ...(current.done === undefined ? {} : { done: current.done }),
      });
    }
    return out;
  }

  /** The search is over: trials not yet ended are canceled (their instances stop at their next report). */
  async cancelAll(attempt: number): Promise<number> {
    const stored = await this.storage.list<TrialState>({ prefix: trialPrefix(attempt) });
    let canceled = 0;
    for (const t of stored.values()) {
      if (t.status !== "queued" && t.status !== "running") continue;
      t.status = "canceled";
      await this.put(attempt, t);
      canceled++;
    }
    return canceled;
  }
}
