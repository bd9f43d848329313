import { z } from "zod";

/** Queue messages carry the job id only; everything else is read from the job's object. */
export const jobMessageSchema = z.object({ job_id: z.uuid() });

/**
 * A trial of a job's model search (durable/trials.ts): the job, the attempt its search belongs to,
 * the trial's number and which send of it this is; its parameters are read from the job's object
 * when it begins.
 */
export const trialMessageSchema = z.object({
  job_id: z.uuid(),
  attempt: z.number().int().min(1),
  trial: z.number().int().min(0),
  run: z.number().int().min(1),
});
export type TrialMessage = z.infer<typeof trialMessageSchema>;
