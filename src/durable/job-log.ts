/**
 * A job's end, told once by its object (the single writer of its state): one JSON log line and
 * one Analytics Engine data point (../core/metrics) with its type, outcome, duration and the
 * attempts that ran.
 */
import { type MetricsSink, recordJob } from "../core/metrics";
import type { Stored } from "./job-state";

export function logJobEnd(metrics: MetricsSink | undefined, s: Stored, durationMs: number): void {
  const { job, internal } = s;
  recordJob(metrics, { organization: job.orgId, type: job.type, outcome: job.status, durationMs, attempts: internal.attempts });
  const line = {
    level: job.status === "failed" ? "warn" : "info",
    msg: "job finished",
    job_id: job.id,
    organization: job.orgId,
    job_type: job.type,
    status: job.status,
    duration_ms: durationMs,
    attempts: internal.attempts,
    handed_back: internal.handedBack ?? 0,
    error: job.status === "failed" ? job.errorMessage : undefined,
  };
  console.log(JSON.stringify(line));
}
