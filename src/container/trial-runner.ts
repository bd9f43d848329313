/**
 * A trial of a job's model search, run by this trainer process for the search's coordinator
 * (./trial-pool, in this process or another): the search's rows read (or shared), the trial run
 * round after round with a report about every second (the job's object answers `stop` once the
 * trial no longer runs: the search closed, the job canceled), and its outcome stored for the
 * coordinator. A trial that fails here fails alone; the search goes on without it.
 */
import { hostname } from "node:os";
import { JobCanceledError } from "../jobs/errors";
import { encodeTrialOutcome } from "../ml/prediction/search/bytes";
import { runTrial, type TrialSpec } from "../ml/prediction/search/trial";
import type { ControlClient } from "./control-client";
import { trainerThreadPool } from "./gbdt-threads";
import { log, logWarning } from "./log";
import { searchDataFor } from "./search-data";
import type { TrialAssignment } from "./wire";

const BEAT_EVERY_MS = 1000;

/** Names this instance in the search's output (`instances`: how many ran trials). */
const INSTANCE = `${hostname()}:${process.pid}`;

export async function runTrialInTrainer(client: ControlClient, a: TrialAssignment): Promise<void> {
  const fields = { job_id: a.job_id, attempt: a.attempt, trial: a.trial };
  try {
    const { data, plan } = await searchDataFor(a.job_id, a.attempt, () => client.readSearchData());
    const now = () => performance.now();
    const steps = runTrial(data, plan, a.spec as unknown as TrialSpec, now, trainerThreadPool());
    let last = now();
    let r = steps.next();
    for (; !r.done; r = steps.next()) {
      if (now() - last < BEAT_EVERY_MS) continue;
      last = now();
      if (await client.trialBeat(a.trial, a.run)) {
        log(`job ${a.job_id} trial ${a.trial}: stopped (the search no longer needs it)`, fields);
        return;
      }
    }
    await client.writeTrialOutcome(a.trial, a.run, encodeTrialOutcome({ ...r.value, instance: INSTANCE }));
    log(`job ${a.job_id} trial ${a.trial}: ${r.value.status} in ${r.value.seconds.toFixed(1)} s`, fields);
  } catch (e) {
    if (e instanceof JobCanceledError) return;
    const message = e instanceof Error ? e.message : String(e);
    logWarning(`job ${a.job_id} trial ${a.trial}: failed: ${message}`, fields);
    await client.failTrial(a.trial, a.run, message).catch(() => {});
  }
}
