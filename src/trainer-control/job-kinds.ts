/**
 * The jobs the trainer runs, one entry per kind: kind → what the Worker does for it (./trainer-kind).
 * The trainer's own table (kind → runner) is ../container/job-runners; both are keyed by the wire's
 * list of kinds, so a kind added there fails to compile until both sides handle it.
 */
import type { TrainerJobKind } from "../container/wire";
import { batchKind } from "./batch-control";
import type { TrainerJob } from "./control-scope";
import { ingestKind } from "./ingest-control";
import type { TrainerKind } from "./trainer-kind";
import { trainingKind } from "./training-control";

export const TRAINER_KINDS: { [K in TrainerJobKind]: TrainerKind<K> } = {
  train: trainingKind,
  infer_batch: batchKind,
  dataset_ingest: ingestKind,
};

/** The entry of a job's kind. (TypeScript cannot tie the table's key to the job's own kind: one cast, here.) */
export function kindOf(r: TrainerJob): TrainerKind<TrainerJobKind> {
  return TRAINER_KINDS[r.job.type] as TrainerKind<TrainerJobKind>;
}
