import { type TrainingTask, trainingTask } from "../container/wire";
import type { Db } from "../db/client";
import { versionById } from "../db/dataset-versions";
import { modelVersionById } from "../db/model-versions";
import { JobInputError } from "../jobs/errors";
import type { JobRecord } from "../jobs/types";
import { modelVersionPrefix, representationKey } from "../storage/keys";

/** Where a training job reads and writes, resolved from its records (each time: data may be deleted meanwhile). */
export interface TrainingTarget {
  task: TrainingTask;
  frameKey: string;
  representationKey: string;
  artifactPrefix: string;
}

export async function trainingTarget(db: Db, job: JobRecord): Promise<TrainingTarget> {
  // The task is read with the wire's schema here, where both the trainer's and the Worker's own run get it.
  const task = trainingTask.safeParse(job.input);
  if (job.type !== "train" || !job.modelId || !job.modelVersionId || !job.datasetVersionId || !job.datasetId || !task.success) {
    throw new JobInputError("The job is not a complete training job.");
  }
  if (!(await modelVersionById(db, job.modelVersionId))) throw new JobInputError("The model version no longer exists (the model was deleted).");
  const dv = await versionById(db, job.datasetVersionId);
  if (!dv?.frameKey) throw new JobInputError("The training data no longer exists (the dataset was deleted).");
  return {
    task: task.data,
    frameKey: dv.frameKey,
    representationKey: representationKey(job.orgId, job.datasetId, job.datasetVersionId),
    // Each job writes under its own prefix: a retried or restarted run can never overwrite, or
    // clean up, the files another run of the same version made ready.
    artifactPrefix: `${modelVersionPrefix(job.orgId, job.modelId, job.modelVersionId)}${job.id}/`,
  };
}
