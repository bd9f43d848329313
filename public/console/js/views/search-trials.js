/** A prediction model's search, from its training job's output.search: a summary line and the trials. */
import { badge, fmtNum, h, table } from "../dom.js";

// The searched parameters in the engine's order; any other key a trial reports follows them.
const PARAMS = ["learning_rate", "num_leaves", "max_depth", "min_data_in_leaf", "l2", "subsample", "feature_fraction"];
const METHODS = { cross_validation: "cross-validation", holdout: "holdout" };

/**
 * The "Model search" section for a finished training job: its trials, or why the default trained
 * one model (output.search_skipped, a table too large for the default search); null otherwise.
 */
export function searchSection(job) {
  const search = job?.output?.search;
  const skipped = job?.output?.search_skipped;
  if (!search?.trials) return typeof skipped === "string" ? skippedSection(skipped) : null;
  const trials = [...search.trials].sort((a, b) => a.trial - b.trial);
  const weights = new Map((search.ensemble?.members ?? []).map((m) => [m.trial, m.weight]));
  const params = [...PARAMS, ...new Set(trials.flatMap((t) => Object.keys(t.params ?? {})).filter((k) => !PARAMS.includes(k)))];
  const rows = trials.map((t) => [
    [
      h("span", { class: "trial" }, String(t.trial)),
      t.trial === search.best ? h("span", { class: "badge best" }, "best") : null,
      weights.has(t.trial) ? h("span", { class: "badge member" }, `ensemble ×${fmtNum(weights.get(t.trial))}`) : null,
    ],
    badge(t.status),
    fmtNum(t.score),
    fmtNum(t.folds),
    fmtNum(t.rounds),
    fmtNum(t.seconds),
    ...params.map((p) => paramText(p, t.params?.[p])),
  ]);
  const rowClass = (i) => (trials[i].trial === search.best ? "best" : weights.has(trials[i].trial) ? "member" : null);
  return h(
    "section",
    { class: "card stack search", "aria-labelledby": "model-search-title" },
    h("h2", { id: "model-search-title" }, "Model search"),
    h("p", { class: "search-summary" }, summary(search, trials)),
    table(
      "Search trials, by trial number (score: validation loss, lower is better)",
      ["Trial", "Status", "Score", "Folds", "Rounds", "Seconds", ...params],
      rows,
      {
        rowClass,
      },
    ),
  );
}

function skippedSection(note) {
  return h(
    "section",
    { class: "card stack search", "aria-labelledby": "model-search-title" },
    h("h2", { id: "model-search-title" }, "Model search"),
    h("p", { class: "search-summary" }, `Not searched: ${note}.`),
  );
}

// A max_depth below 0 is the engine's "no limit".
const paramText = (name, v) => (name === "max_depth" && typeof v === "number" && v < 0 ? "no limit" : fmtNum(v));

function summary(search, trials) {
  const best = trials.find((t) => t.trial === search.best);
  const members = search.ensemble?.members ?? [];
  return [
    `${METHODS[search.method] ?? search.method}, ${trials.length} trial${trials.length === 1 ? "" : "s"} on ${search.instances} instance${search.instances === 1 ? "" : "s"}; `,
    `stopped: ${String(search.stop_reason ?? "—").replaceAll("_", " ")}. `,
    best ? `Best: trial ${best.trial} (score ${fmtNum(best.score)}). ` : "",
    members.length
      ? `Ensemble of ${members.map((m) => `trial ${m.trial} ×${fmtNum(m.weight)}`).join(", ")} (loss ${fmtNum(search.ensemble.loss)}).`
      : "No ensemble: the best trial alone.",
  ].join("");
}
