import { recordFailure } from "../jobs/attempts";
import { isPermanentError, JobCanceledError, JobInputError } from "../jobs/errors";
import { jobObject } from "../jobs/job-object";
import { controlFor, type WorkDeps } from "../jobs/work";
import { dispatchTrialToTrainer, searchInstances } from "../trainer-control/trainer-client";
import { jobHandlers } from "./handlers";
import { jobMessageSchema, type TrialMessage, trialMessageSchema } from "./messages";

/** A trial not handed to an instance (all busy, or starting) is delivered again after this long. */
const TRIAL_REDISPATCH_DELAY_S = 2;

/**
 * One delivery of a trial of a job's model search (or of a part of a large batch, sent the same way): the job's object says whether it is to run now
 * (not a duplicate, the search still on); it is handed to the trainer instance of its slot, or
 * delivered again shortly when none took it. An instance that dies with it is the job's object's
 * watchdog's business (durable/trials.ts), not the queue's.
 */
async function processTrialMessage(deps: WorkDeps, msg: Message<unknown>, m: TrialMessage): Promise<void> {
  if (searchInstances(deps.env) <= 1) {
    // no instances to run it on (a search here sends none): left to the trials' watchdog, which fails it
    console.warn(`trial ${m.trial} of job ${m.job_id}: this deployment runs no search trials; dropped`);
    msg.ack();
    return;
  }
  const jobObj = jobObject(deps.env.JOB, m.job_id);
  const { spec, slot } = await jobObj.beginTrial(m.attempt, m.trial, m.run);
  if (!spec) {
    msg.ack();
    return;
  }
  try {
    await dispatchTrialToTrainer(deps.env, { job_id: m.job_id, attempt: m.attempt, trial: m.trial, run: m.run, spec }, slot);
    msg.ack();
  } catch (e) {
    console.warn(`trial ${m.trial} of job ${m.job_id}: not handed to a trainer yet (${errorText(e)})`);
    await jobObj.trialUndispatched(m.attempt, m.trial, m.run);
    msg.retry({ delaySeconds: TRIAL_REDISPATCH_DELAY_S });
  }
}

/**
 * One queue delivery of `{job_id}`. The job's object decides whether this delivery may start the
 * work (duplicates and canceled jobs do nothing). The message is acked once the outcome is
 * recorded; a failure is settled by the jobs' attempt policy (fail now, or requeue and have the
 * queue deliver again after a back-off), so no job is left running.
 */
async function processJobMessage(deps: WorkDeps, msg: Message<unknown>): Promise<void> {
  const trial = trialMessageSchema.safeParse(msg.body);
  if (trial.success) return processTrialMessage(deps, msg, trial.data);
  const parsed = jobMessageSchema.safeParse(msg.body);
  if (!parsed.success) {
    console.error("dropping malformed job message", msg.body);
    msg.ack();
    return;
  }
  const jobObj = jobObject(deps.env.JOB, parsed.data.job_id);
  const begun = await jobObj.begin({ messageId: msg.id });
  const job = begun.job;
  if (!job) {
    msg.ack();
    return;
  }
  const handler = jobHandlers[job.type];
  try {
    if (!handler) throw new JobInputError(`Jobs of type ${job.type} cannot run in this version of the service.`);
    const outcome = await handler(deps, job, controlFor(jobObj, begun.attempt));
    if (!("settled" in outcome)) await jobObj.succeed(outcome.output, outcome.rowsProcessed, begun.attempt);
    msg.ack();
  } catch (e) {
    if (e instanceof JobCanceledError) {
      msg.ack();
      return;
    }
    const permanent = isPermanentError(e);
    if (!permanent) console.warn(`job ${parsed.data.job_id} attempt ${begun.attempt} failed`, e);
    let retried = false;
    await recordFailure(jobObj, begun.attempt, { message: errorText(e), permanent }, (delaySeconds) => {
      retried = true;
      msg.retry({ delaySeconds });
    });
    if (!retried) msg.ack();
  }
}

/** A message the queue gave up on: its job ends failed, never stuck. */
async function processDeadLetter(deps: WorkDeps, msg: Message<unknown>): Promise<void> {
  const trial = trialMessageSchema.safeParse(msg.body);
  const parsed = jobMessageSchema.safeParse(msg.body);
  if (trial.success) {
    // a part no instance took (a search trial, a batch row range): it fails alone, and its job decides
    const m = trial.data;
    await jobObject(deps.env.JOB, m.job_id).settleTrial(
      m.attempt,
      m.trial,
      m.run,
      "failed",
      `Part ${m.trial} of the job (a search trial or a batch's row range) could not be handed to a trainer instance.`,
    );
  } else if (parsed.success) {
    await jobObject(deps.env.JOB, parsed.data.job_id).fail(
      "The job could not be processed: its queue message was moved to the dead-letter queue after repeated failures.",
    );
  }
  msg.ack();
}

export async function handleQueueBatch(batch: MessageBatch<unknown>, deps: WorkDeps): Promise<void> {
  const deadLetters = batch.queue.endsWith("-dlq");
  for (const msg of batch.messages) {
    await (deadLetters ? processDeadLetter(deps, msg) : processJobMessage(deps, msg));
  }
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
