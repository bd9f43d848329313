/**
 * What the Worker does for each kind of job the trainer runs, as one contract: the table of kinds
 * (./job-kinds) holds one entry per kind of the wire (../container/wire), and the control routes
 * and the restart after a trainer crash dispatch through it rather than by comparing job types.
 */
import type { TaskOf, TrainerJobKind } from "../container/wire";
import type { JobRecord, JsonObject } from "../jobs/types";
import type { ControlDeps, TrainerJob } from "./control-scope";

export interface TrainerKind<K extends TrainerJobKind> {
  /** What the trainer is told to do (`GET task`); a job whose model or data is gone fails here. */
  task(deps: ControlDeps, r: TrainerJob<K>): Promise<TaskOf<K>>;
  /**
   * The stored frame the job reads (a dataset version's), as `read` gets it: its body, or its
   * metadata when the trainer is handed a URL to it. Absent: the kind reads none (404).
   */
  readFrame?<T>(deps: ControlDeps, r: TrainerJob<K>, read: (key: string) => Promise<T | null>): Promise<T>;
  /** Records the trainer's outcome and succeeds the job; throws 409 when the attempt no longer counts. */
  succeed(deps: ControlDeps, r: TrainerJob<K>, output: JsonObject): Promise<{ ok: true }>;
  /** Whether a running job of this kind runs on the trainer (and is lost when the trainer restarts). */
  ranOnTrainer(job: JobRecord): boolean;
}
