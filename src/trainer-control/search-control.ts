/**
 * The control routes' side of a model search whose trials run on several trainer instances: the
 * coordinator (the trainer running the `train` job) stores the search's rows, sends trials, polls
 * them and closes the search; each trial's instance reads the rows, reports, and stores its
 * outcome. The trials' state is the job's object's (durable/trials.ts); the bytes are in R2 under
 * the job's attempt (storage/keys). Everything is refused (409) once the job no longer runs for
 * the attempt, which is how a canceled job's trials stop.
 */
import { Conflict, NotFound } from "../core/errors";
import { type JsonObject, usesTrials } from "../jobs/types";
import { deletePrefix, searchDataKey, searchPrefix, trialOutcomeKey } from "../storage/keys";
import { type ControlDeps, runningJob, runningJobOf, stopWork, trainerJob } from "./control-scope";

/**
 * The train job (or the batch inference job, whose parts go through the same routes) of the
 * trial routes (they do not count as the coordinator's heartbeat).
 */
async function searchJob(deps: ControlDeps, jobId: string, attempt: number) {
  const r = await trainerJob(deps, jobId, attempt);
  if (!usesTrials(r.job.type)) throw new NotFound();
  return r;
}

/** The search's rows (streamed: a large table's are too big to hold; the route requires their Content-Length). */
export async function writeSearchData(deps: ControlDeps, jobId: string, attempt: number, body: ReadableStream): Promise<void> {
  const r = await runningJobOf(deps, jobId, attempt, "train");
  const key = searchDataKey(r.job.orgId, jobId, attempt);
  await deps.bucket.put(key, body);
  // The job may have ended during the upload (up to 90 MB), after its object deleted the search's
  // files (durable/job.ts): then these rows are nobody's, and go too.
  try {
    await runningJob(deps, jobId, attempt);
  } catch (e) {
    await deps.bucket.delete(key);
    throw e;
  }
}

export async function readSearchData(deps: ControlDeps, jobId: string, attempt: number): Promise<R2ObjectBody> {
  const r = await searchJob(deps, jobId, attempt);
  const obj = await deps.bucket.get(searchDataKey(r.job.orgId, jobId, attempt));
  if (!obj) throw new NotFound("The search's rows are not stored (the search is over).");
  return obj;
}

export async function startTrial(deps: ControlDeps, jobId: string, attempt: number, trial: number, slot: number, spec: JsonObject) {
  const r = await searchJob(deps, jobId, attempt);
  if (!(await r.jobObj.startTrial(attempt, trial, slot, spec))) throw stopWork();
  return { ok: true };
}

export async function listTrials(deps: ControlDeps, jobId: string, attempt: number) {
  const r = await searchJob(deps, jobId, attempt);
  const trials = await r.jobObj.listTrials(attempt);
  if (!trials) throw stopWork();
  return { trials };
}

/** The search is over: trials still running are canceled and the search's files deleted. */
export async function closeSearch(deps: ControlDeps, jobId: string, attempt: number) {
  const r = await searchJob(deps, jobId, attempt);
  await r.jobObj.closeSearch(attempt);
  await deletePrefix(deps.bucket, searchPrefix(r.job.orgId, jobId, attempt));
  return { ok: true };
}

/** A trial's instance (running send `run`) is alive; `stop`: that send no longer runs (canceled, the job over, or sent again). */
export async function trialBeat(deps: ControlDeps, jobId: string, attempt: number, trial: number, run: number, done?: number) {
  const r = await searchJob(deps, jobId, attempt);
  return { stop: !(await r.jobObj.trialBeat(attempt, trial, run, done)) };
}

/** The trial's instance is stopping: the trial is sent again at once (`ok` false: it no longer ran). */
export async function handBackTrial(deps: ControlDeps, jobId: string, attempt: number, trial: number, run: number) {
  const r = await searchJob(deps, jobId, attempt);
  return { ok: await r.jobObj.handBackTrial(attempt, trial, run) };
}

export async function failTrial(deps: ControlDeps, jobId: string, attempt: number, trial: number, run: number, message: string) {
  const r = await searchJob(deps, jobId, attempt);
  return { ok: await r.jobObj.settleTrial(attempt, trial, run, "failed", message) };
}

/** A trial's outcome: stored, then the trial is done (an outcome of a trial no longer running is refused). */
export async function writeTrialOutcome(
  deps: ControlDeps,
  jobId: string,
  attempt: number,
  trial: number,
  run: number,
  body: ArrayBuffer,
): Promise<void> {
  const r = await searchJob(deps, jobId, attempt);
  if (!(await r.jobObj.trialBeat(attempt, trial, run))) throw new Conflict("The trial no longer runs; its outcome is not needed.");
  const key = trialOutcomeKey(r.job.orgId, jobId, attempt, trial);
  await deps.bucket.put(key, body);
  // not settled: the trial was canceled, or the job ended (its search's files deleted), meanwhile
  if (!(await r.jobObj.settleTrial(attempt, trial, run, "done", null))) await deps.bucket.delete(key);
}

export async function readTrialOutcome(deps: ControlDeps, jobId: string, attempt: number, trial: number): Promise<R2ObjectBody> {
  const r = await searchJob(deps, jobId, attempt);
  const obj = await deps.bucket.get(trialOutcomeKey(r.job.orgId, jobId, attempt, trial));
  if (!obj) throw new NotFound(`Trial ${trial} has no stored outcome.`);
  return obj;
}
