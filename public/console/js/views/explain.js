/** One row of an inference job explained: POST /jobs/{id}/explain, then the job polled. */
import { api, pollJob } from "../api.js";
import { contributionBars } from "../chart.js";
import { fill, fmtNum, h, notice, progressBar, table } from "../dom.js";

export async function explainRow(inferenceJobId, rowId, box, ctx) {
  const bar = progressBar("Explaining", null);
  fill(box, bar);
  try {
    const started = await startExplain(inferenceJobId, rowId);
    const job = await pollJob(started.id, (j) => bar.set(j.progress, j.status), ctx.alive, 500);
    if (!job) return;
    if (job.status !== "succeeded") return box.append(notice(`Explanation ${job.status}: ${job.error_message ?? ""}`, "error"));
    fill(box, showExplanation(job.explanations[0]));
  } catch (err) {
    box.append(notice(err.message, "error"));
  }
}

/**
 * Sync inference stores its job and input just after answering, so an explanation asked at once
 * may find them not there yet (409, 404): asked again, half a second apart, for up to 15 s.
 */
async function startExplain(jobId, rowId) {
  for (let i = 0; ; i++) {
    try {
      return await api(`/jobs/${jobId}/explain`, { method: "POST", json: { ids: [rowId] } });
    } catch (err) {
      if (![404, 409].includes(err.status) || i >= 30) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

function showExplanation(e) {
  const flip = e.prediction_flip;
  const contributions = e.feature_contributions ?? [];
  return h(
    "section",
    { class: "explanation stack", "aria-labelledby": "explanation-title" },
    h("h3", { id: "explanation-title" }, "Why", e.explanation_label ? ` — ${e.explanation_label}` : ""),
    h("p", { class: "lead" }, e.explanation_text ?? ""),
    e.explanation_gloss ? h("p", { class: "hint" }, e.explanation_gloss) : null,
    flip
      ? h("p", {}, `Smallest change that flips it: ${flip.column} from ${fmtNum(flip.from)} to ${fmtNum(flip.to)} → ${fmtNum(flip.new_prediction)}.`)
      : null,
    !flip && e.flip_reason ? h("p", { class: "hint" }, e.flip_reason) : null,
    contributions.length ? contributionBars(contributions) : null,
    contributions.length
      ? table(
          `Column contributions (base value ${fmtNum(e.base_value)})`,
          ["Column", "Value", "Contribution"],
          contributions.map((c) => [c.column, fmtNum(c.value), fmtNum(c.contribution)]),
        )
      : null,
  );
}
