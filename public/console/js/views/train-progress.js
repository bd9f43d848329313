/** A training job followed live: status, phase, progress, the loss curve, and a cancel button. */
import { api, pollJob, TERMINAL } from "../api.js";
import { lossChart } from "../chart.js";
import { badge, fill, h, notice, progressBar, shortId } from "../dom.js";

export async function trainingJobPanel(first, ctx, onEnd) {
  const status = h("span");
  const bar = progressBar("Training progress", first.progress);
  const chartBox = h("div", { class: "chart-slot" });
  const message = h("div", { "aria-live": "polite" });
  const cancel = h("button", { type: "button", class: "danger" }, "Cancel training");
  const panel = h(
    "section",
    { class: "card stack", "aria-labelledby": "train-job-title" },
    h("h2", { id: "train-job-title" }, "Training job ", h("a", { href: `#/jobs/${first.id}` }, shortId(first.id)), " ", status),
    bar,
    h("h3", {}, "Loss curve"),
    chartBox,
    message,
    h("p", { class: "actions" }, cancel),
  );
  let lastPoints = -1;
  const show = (job) => {
    fill(status, badge(job.status));
    const steps = job.total_steps ? `step ${job.current_step ?? 0} of ${job.total_steps}` : "";
    bar.set(job.progress, [job.current_phase, steps].filter(Boolean).join(", "));
    // Redraw only when new points came in (the chart keeps its place for screen readers otherwise).
    const n = job.metrics_history?.length ?? 0;
    const ended = TERMINAL.includes(job.status);
    // Only prediction models boost with a loss curve; the other types report progress and steps.
    if (!n && job.model_type !== "prediction")
      fill(chartBox, h("p", { class: "hint" }, `This ${job.model_type} model has no loss curve: see its progress and steps above.`));
    else if (!n && ended) fill(chartBox, h("p", { class: "hint" }, `No loss values were reported before the job ended (${job.status}).`));
    else if (n !== lastPoints) fill(chartBox, lossChart(...phasePoints(job)));
    lastPoints = n;
    cancel.hidden = ended;
    if (job.error_message) fill(message, notice(job.error_message, "error"));
  };
  cancel.addEventListener("click", async () => {
    cancel.disabled = true;
    try {
      const r = await api(`/jobs/${first.id}/cancel`, { method: "POST" });
      fill(message, notice(`Job ${r.status}.`));
    } catch (err) {
      fill(message, notice(err.message, "error"));
    }
    cancel.disabled = false;
  });
  show(first);
  if (!TERMINAL.includes(first.status)) {
    // Not awaited: the page renders now and the panel keeps itself up to date.
    pollJob(first.id, show, ctx.alive)
      .then((job) => job && TERMINAL.includes(job.status) && onEnd?.(job))
      .catch((err) => fill(message, notice(err.message, "error")));
  }
  return panel;
}

// The engine's default boosting rounds (src/ml/gbdt/train.ts), when the job's params name none.
const DEFAULT_MAX_ROUNDS = 500;

/**
 * A model search's history is a point per trial. Otherwise the history holds, in jobs from before
 * prediction models stopped training the shared encoder, the self-supervised phase's
 * reconstruction loss first (steps up to the ssl steps), then boosting's train/validation loss: different losses, so the chart shows one phase,
 * boosting's once it has begun. The ssl steps are total_steps less the planned rounds.
 */
function phasePoints(job) {
  const points = job.metrics_history ?? [];
  // A model search reports, after each trial, the best validation loss so far and no training loss.
  if (points.length && points.every((p) => p.train_loss == null)) return [points, "Model search: best validation loss so far", "trial"];
  const sslEnd = (job.total_steps ?? 0) - (job.input?.params?.max_rounds ?? DEFAULT_MAX_ROUNDS);
  const boosting = points.filter((p) => p.step > sslEnd).map((p) => ({ ...p, step: p.step - Math.max(sslEnd, 0) }));
  if (boosting.length || sslEnd <= 0) return [boosting, "Boosting loss (train and validation)", "round"];
  return [points, "Self-supervised phase: reconstruction loss", "step"];
}
