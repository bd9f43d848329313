import { MAX_POINTS_PER_REPORT } from "../core/limits";
import type { MetricPoint } from "../jobs/types";
import type { TrainEvent } from "../model-types/contract";
import type { TrainingIO, TrainingReport } from "./training-io";

/** The job's `current_phase`, as a type's training steps name it. */
type ReportedPhase = Extract<TrainEvent, { kind: "step" }>["phase"];

/** Batches metric points and sends a report at most every `everyMs` (and on phase changes or a full batch). */
export class Reporter {
  private points: MetricPoint[] = [];
  private last = -Infinity;
  private phase: ReportedPhase | undefined = undefined;
  private pending: TrainingReport | null = null;

  constructor(
    private io: TrainingIO,
    private everyMs: number,
    private now: () => number,
  ) {}

  async step(s: { step: number; total: number; phase: ReportedPhase; point: MetricPoint | null }): Promise<void> {
    if (s.point) this.points.push(s.point);
    this.pending = {
      current_step: s.step,
      total_steps: s.total,
      current_phase: s.phase,
      progress: Math.min(99, Math.floor((100 * s.step) / Math.max(1, s.total))),
    };
    const phaseChanged = s.phase !== this.phase;
    this.phase = s.phase;
    if (phaseChanged || this.points.length >= MAX_POINTS_PER_REPORT || this.now() - this.last >= this.everyMs) await this.flush();
  }

  /** No step to count, but the job is alive: a report (the pending one, or an empty heartbeat) when one is due. */
  async alive(): Promise<void> {
    if (this.now() - this.last < this.everyMs) return;
    if (!this.pending && this.points.length === 0) {
      this.last = this.now();
      await this.io.report({});
    } else await this.flush();
  }

  async flush(): Promise<void> {
    if (!this.pending && this.points.length === 0) return;
    const r: TrainingReport = { ...this.pending };
    if (this.points.length) r.metrics = this.points;
    this.points = [];
    this.pending = null;
    this.last = this.now();
    await this.io.report(r);
  }
}
