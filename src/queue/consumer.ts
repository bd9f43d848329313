import { recordFailure } from "../jobs/attempts";
import { isPermanentError, JobCanceledError, JobInputError } from "../jobs/errors";
import { jobObject } from "../jobs/job-object";
import { controlFor, type WorkDeps } from "../jobs/work";
import { jobHandlers } from "./handlers";
import { jobMessageSchema } from "./messages";

/**
 * One queue delivery of `{job_id}`. The job's object decides whether this delivery may start the
 * work (duplicates and canceled jobs do nothing). The message is acked once the outcome is
 * recorded; a failure is settled by the jobs' attempt policy (fail now, or requeue and have the
 * queue deliver again after a back-off), so no job is left running.
 */
async function processJobMessage(deps: WorkDeps, msg: Message<unknown>): Promise<void> {
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
  const parsed = jobMessageSchema.safeParse(msg.body);
  if (parsed.success) {
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
