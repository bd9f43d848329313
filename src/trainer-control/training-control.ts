/**
 * The control routes' side of a `train` job run by the trainer: its task (the job's input), the
 * dataset version's frame and shared representation it reads, the artifact files it writes, and
 * the version recorded when it succeeds (./finalize).
 */

import { artifactFile } from "../container/wire";
import { NotFound } from "../core/errors";
import { type ControlDeps, resolveOrFail, runningJobOf, stopWork, type TrainerJob } from "./control-scope";
import { completeTraining } from "./finalize";
import { type TrainingTarget, trainingTarget } from "./target";
import type { TrainerKind } from "./trainer-kind";

/** Where the job reads and writes, resolved from its records each time (data may be deleted meanwhile). */
const targetOf = (deps: ControlDeps, r: TrainerJob<"train">): Promise<TrainingTarget> => resolveOrFail(r, () => trainingTarget(deps.db, r.job));

export const trainingKind: TrainerKind<"train"> = {
  task: async (deps, r) => ({ ...(await targetOf(deps, r)).task, search_instances: deps.searchInstances }),
  async readFrame(deps, r, read) {
    const obj = await read((await targetOf(deps, r)).frameKey);
    if (!obj) throw new NotFound("The training data is missing from storage.");
    return obj;
  },
  async succeed(deps, r, output) {
    const target = await targetOf(deps, r);
    if (!(await completeTraining(deps, r.job, target, output, (out, rows) => r.jobObj.succeed(out, rows, r.attempt)))) throw stopWork();
    return { ok: true };
  },
  ranOnTrainer: () => true,
};

const scoped = async (deps: ControlDeps, jobId: string, attempt: number) => targetOf(deps, await runningJobOf(deps, jobId, attempt, "train"));

export async function readRepresentation(deps: ControlDeps, jobId: string, attempt: number): Promise<R2ObjectBody | null> {
  return deps.bucket.get((await scoped(deps, jobId, attempt)).representationKey);
}

export async function writeRepresentation(deps: ControlDeps, jobId: string, attempt: number, body: ArrayBuffer): Promise<void> {
  const target = await scoped(deps, jobId, attempt);
  await deps.bucket.put(target.representationKey, body, { httpMetadata: { contentType: "application/json" } });
}

export async function writeArtifact(deps: ControlDeps, jobId: string, attempt: number, file: string, body: ArrayBuffer): Promise<void> {
  if (!artifactFile.safeParse(file).success) throw new NotFound();
  const target = await scoped(deps, jobId, attempt);
  await deps.bucket.put(target.artifactPrefix + file, body);
}
