/**
 * Progress bars on stderr, only on a terminal and not under --json (scripts read stdout; a pipe
 * gets no bar codes): bytes for uploads, steps with phase and latest losses for jobs.
 */
import cliProgress from "cli-progress";
import type { Job } from "../errors.js";
import { state } from "./output.js";

const enabled = () => Boolean(process.stderr.isTTY) && !state.json;

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

/** A bytes bar: call the answer with (sent, total); `stop()` when done. */
export function bytesBar(label: string) {
  if (!enabled()) return { update: (_s: number, _t: number) => {}, stop: () => {} };
  const bar = new cliProgress.SingleBar(
    { format: `${label} [{bar}] {percentage}% {done} / {size}`, stream: process.stderr, hideCursor: true, clearOnComplete: false },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(sent: number, total: number) {
      if (!started) bar.start(total, 0, { done: mb(0), size: mb(total) });
      started = true;
      bar.update(sent, { done: mb(sent), size: mb(total) });
    },
    stop: () => started && bar.stop(),
  };
}

/** A job bar: percent, steps, phase, and the latest train / validation loss when the job has them. */
export function jobBar(label: string) {
  if (!enabled()) return { update: (_j: Job) => {}, stop: () => {} };
  const bar = new cliProgress.SingleBar(
    { format: `${label} [{bar}] {percentage}% {status}{steps}{phase}{losses}`, stream: process.stderr, hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(job: Job) {
      const payload = describeJob(job);
      if (!started) bar.start(100, 0, payload);
      started = true;
      bar.update(Math.round(job.progress ?? (job.status === "succeeded" ? 100 : 0)), payload);
    },
    stop: () => started && bar.stop(),
  };
}

export function describeJob(job: Job) {
  const last = job.metrics_history?.[job.metrics_history.length - 1];
  const fmt = (v: number | null | undefined) => (typeof v === "number" ? v.toPrecision(4) : "–");
  return {
    status: job.status,
    steps: job.total_steps ? `  step ${job.current_step ?? 0}/${job.total_steps}` : "",
    phase: job.current_phase ? `  ${job.current_phase}` : "",
    losses: last ? `  train ${fmt(last.train_loss)} val ${fmt(last.val_loss)}` : "",
  };
}
