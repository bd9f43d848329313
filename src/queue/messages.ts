import { z } from "zod";

/** Queue messages carry the job id only; everything else is read from the job's object. */
export const jobMessageSchema = z.object({ job_id: z.uuid() });
