/**
 * What a training run needs from the outside world. Two implementations: in the Worker (R2 and
 * the job's Durable Object directly; used by tests and small deployments) and in the trainer
 * process (the Worker's internal control routes over HTTP). Nothing here names a Cloudflare type,
 * so the trainer container can bundle the runner.
 */

import type { MetricPoint, ProgressReport } from "../jobs/types";
import type { Frame } from "../ml/frame";
import type { ArtifactFile } from "../storage/keys";

export interface TrainingReport extends ProgressReport {
  /** Metric points since the last report, oldest first. */
  metrics?: MetricPoint[];
  rows_processed?: number;
}

export interface TrainingIO {
  loadFrame(): Promise<Frame>;
  /** The dataset version's cached representation (JSON text), or null when none is stored yet. */
  loadRepresentation(): Promise<string | null>;
  saveRepresentation(json: string): Promise<void>;
  saveArtifact(file: ArtifactFile, bytes: Uint8Array): Promise<void>;
  /** Progress and heartbeat; throws JobCanceledError when the job was canceled or restarted. */
  report(r: TrainingReport): Promise<void>;
}

/** The training job's input (also shown as the job's `input`). */
export interface TrainingTask {
  model_name: string;
  version_number: number;
  model_type: string;
  label_column: string | null;
  input_columns: string[] | null;
  params: Record<string, unknown>;
}
