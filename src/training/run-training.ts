/**
 * One training run, the same in the Worker and in the trainer container: load the data and the
 * dataset's cached representation, train the model type (./run-prediction, ./run-unsupervised),
 * store its artifacts. The engine trains step by step; between steps the runner reports progress
 * at most every `reportEveryMs`, which is also where a cancel is noticed (report throws), so a
 * canceled job stops within about that long.
 */
import { MlInputError } from "../ml/errors";
import type { Frame } from "../ml/frame";
import { parseRepresentation } from "../ml/representation/representation";
import { UNSUPERVISED_MODEL_TYPES, type UnsupervisedModelType } from "../ml/unsupervised/model";
import type { TrainingIO, TrainingTask } from "./io";
import { Reporter } from "./reporter";
import type { RunContext, RunStage, TrainingOutput } from "./run-context";
import { runPrediction } from "./run-prediction";
import { runUnsupervised } from "./run-unsupervised";

export type { RunStage, TrainingOutput } from "./run-context";

export interface RunOptions {
  reportEveryMs?: number;
  now?: () => number;
  /** Called as each stage of the run starts (logs and the memory bench, bench/large/train-memory.ts). */
  onStage?: (stage: RunStage) => void;
}

export async function runTraining(task: TrainingTask, io: TrainingIO, opts: RunOptions = {}): Promise<TrainingOutput> {
  const isUnsupervised = (UNSUPERVISED_MODEL_TYPES as readonly string[]).includes(task.model_type);
  if (task.model_type !== "prediction" && !isUnsupervised) throw new MlInputError(`model type ${task.model_type} cannot be trained by this trainer`);
  const now = opts.now ?? (() => performance.now());
  const t0 = now();
  const reporter = new Reporter(io, opts.reportEveryMs ?? 500, now);
  opts.onStage?.("load");
  await io.report({ progress: 0, current_step: 0 });
  let frame: Frame | null = await io.loadFrame();
  const cached = await io.loadRepresentation();
  const tLoaded = now();
  const sec = (a: number, b: number) => Math.round(b - a) / 1000;
  const ctx: RunContext = {
    task,
    io,
    takeFrame: () => {
      const f = frame;
      if (!f) throw new Error("the frame was already taken");
      frame = null;
      return f;
    },
    representation: cached ? parseRepresentation(cached) : null,
    reporter,
    now,
    onStage: opts.onStage ?? (() => {}),
    loadedAt: tLoaded,
    seconds: (t) => ({ load: sec(t0, tLoaded), ssl: sec(tLoaded, t.ssl), fit: sec(t.ssl, t.fit), export: sec(t.fit, t.end), total: sec(t0, t.end) }),
  };
  return isUnsupervised ? runUnsupervised(ctx, task.model_type as UnsupervisedModelType) : runPrediction(ctx);
}
