/** What every model type's run gets and gives back (./run-training dispatches by type). */
import type { Frame } from "../ml/frame";
import type { PredictionStage } from "../ml/prediction/model";
import type { Representation } from "../ml/representation/representation";
import type { TrainingIO, TrainingTask } from "./io";
import type { Reporter } from "./reporter";

/** The training job's output (also its `output` in the API); type-specific fields come on top. */
export interface TrainingOutput {
  model_type: string;
  metrics: Record<string, number | null>;
  /** Whether the shared representation was reused from an earlier model on this dataset version. */
  representation: "built" | "reused";
  features: number;
  seconds: { load: number; ssl: number; fit: number; export: number; total: number };
  ssl_steps: number;
  rows: number;
  /** What the model version shows about itself (stored with it); null for prediction models. */
  summary: Record<string, unknown> | null;
  [typeSpecific: string]: unknown;
}

/** The stages of a run: loading the data, the model type's own (a prediction model's: PredictionStage), storing the artifacts. */
export type RunStage = "load" | PredictionStage | "export";

/** What every model type's run gets. */
export interface RunContext {
  task: TrainingTask;
  io: TrainingIO;
  /**
   * The table, handed over once (a second call throws): the runner keeps no reference to it, so a
   * run can let go of it as soon as it no longer needs it (a prediction model once its rows are
   * binned: on a large table the frame is most of the job's memory).
   */
  takeFrame: () => Frame;
  /** The dataset version's cached representation, null when none is stored (or it is unusable). */
  representation: Representation | null;
  reporter: Reporter;
  now: () => number;
  onStage: (stage: RunStage) => void;
  /** When the data was loaded (the ssl part starts there). */
  loadedAt: number;
  /** The seconds block of the output from the end times of the ssl, fit and export parts. */
  seconds: (t: { ssl: number; fit: number; end: number }) => TrainingOutput["seconds"];
}
