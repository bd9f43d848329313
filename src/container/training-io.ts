/**
 * What a training run needs from the outside world. Two implementations: in the trainer process
 * (the Worker's internal control routes over HTTP, ./control-client) and in the Worker itself
 * when a deployment has no trainer (R2 and the job's Durable Object directly: the test pool,
 * ../trainer-control/worker-io). Nothing here names a Cloudflare type, so the trainer bundles the
 * runner.
 */
import type { MetricPoint, ProgressReport } from "../jobs/types";
import type { Frame } from "../ml/frame";
import type { TrialPool } from "../ml/prediction/search/fan-out";
import type { ArtifactFile } from "../storage/keys";

export interface TrainingReport extends ProgressReport {
  /** Metric points since the last report, oldest first. */
  metrics?: MetricPoint[];
  rows_processed?: number;
}

interface FrameLoadOptions {
  /** Columns widened only when read, one at a time (../ingest/lazy-columns): for a type that reads column by column. */
  lazy?: boolean;
}

export interface TrainingIO {
  loadFrame(opts?: FrameLoadOptions): Promise<Frame>;
  /** The dataset version's cached representation (JSON text), or null when none is stored yet. */
  loadRepresentation(): Promise<string | null>;
  saveRepresentation(json: string): Promise<void>;
  saveArtifact(file: ArtifactFile, bytes: Uint8Array): Promise<void>;
  /** Progress and heartbeat; throws JobCanceledError when the job was canceled or restarted. */
  report(r: TrainingReport): Promise<void>;
  /** Other trainer instances a model search may run its trials on; absent or null: none. */
  trialPool?: TrialPool | null;
}
