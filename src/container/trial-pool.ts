/**
 * The coordinator's side of a model search run on several trainer instances: the engine's
 * TrialPool (../ml/prediction/search/fan-out) over the control routes. The rows are stored once
 * for the instances (and shared in memory with trials that land in this process); each trial is
 * sent through the job's object and the queue to the instance of a free slot; the coordinator
 * polls the trials (which is also their watchdog) and reads each finished one's outcome.
 */

import { SEARCH_DATA_MAX_BYTES } from "../core/limits";
import { decodeTrialOutcome, encodeSearchData } from "../ml/prediction/search/bytes";
import type { TrialPool } from "../ml/prediction/search/fan-out";
import type { FoldPlan } from "../ml/prediction/search/folds";
import type { SearchRows, TrialOutcome, TrialSpec } from "../ml/prediction/search/trial";
import type { ControlClient } from "./control-client";
import { log } from "./log";
import { shareSearchData, unshareSearchData } from "./search-data";

/** How often the coordinator asks how its trials are doing. */
const POLL_MS = 500;

export class ControlTrialPool implements TrialPool {
  private readonly freeSlots: number[];
  /** The trials sent and not yet settled: their slot and when they were sent. */
  private readonly pending = new Map<number, { slot: number; sentAt: number }>();

  constructor(
    private readonly client: ControlClient,
    readonly instances: number,
  ) {
    this.freeSlots = Array.from({ length: instances }, (_, i) => i);
  }

  async open(data: SearchRows, plan: FoldPlan): Promise<boolean> {
    const bytes = encodeSearchData(data, plan);
    if (bytes.byteLength > SEARCH_DATA_MAX_BYTES) {
      log(`job ${this.client.jobId}: the search's rows (${Math.round(bytes.byteLength / 2 ** 20)} MiB) stay here: trials run one after the other`, {
        job_id: this.client.jobId,
        attempt: this.client.attempt,
      });
      return false;
    }
    shareSearchData(this.client.jobId, this.client.attempt, { data, plan });
    await this.client.writeSearchData(bytes);
    return true;
  }

  async submit(spec: TrialSpec): Promise<void> {
    const slot = this.freeSlots.shift();
    if (slot === undefined) throw new Error("a trial was sent while every slot was busy");
    this.pending.set(spec.trial, { slot, sentAt: Date.now() });
    await this.client.startTrial(spec.trial, slot, { ...spec });
  }

  async settled(limitMs: number): Promise<TrialOutcome[]> {
    const deadline = Date.now() + limitMs;
    for (;;) {
      const { trials } = await this.client.listTrials();
      const out: TrialOutcome[] = [];
      for (const t of trials) {
        const sent = this.pending.get(t.trial);
        if (!sent || t.status === "queued" || t.status === "running") continue;
        out.push(
          t.status === "done"
            ? decodeTrialOutcome(await this.client.readTrialOutcome(t.trial))
            : { trial: t.trial, fits: [], status: "failed", seconds: (Date.now() - sent.sentAt) / 1000, message: t.message ?? t.status },
        );
        this.pending.delete(t.trial);
        this.freeSlots.push(sent.slot);
      }
      if (out.length > 0 || Date.now() >= deadline) return out;
      await new Promise((r) => setTimeout(r, Math.min(POLL_MS, Math.max(0, deadline - Date.now()))));
    }
  }

  async close(): Promise<void> {
    unshareSearchData(this.client.jobId, this.client.attempt);
    await this.client.closeSearch();
  }
}
