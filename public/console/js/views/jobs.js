/** Jobs: list filtered by type and status, cancel and retry, and one job's detail. */
import { api, newestRequest, pollJob, TERMINAL } from "../api.js";
import { add, badge, field, fill, filterOptions, fmtDate, fmtNum, h, notice, shortId, table } from "../dom.js";
import { searchSection } from "./search-trials.js";
import { trainingJobPanel } from "./train-progress.js";

const TYPES = ["dataset_ingest", "train", "infer_sync", "infer_batch", "infer_explain"];
const STATUSES = ["queued", "running", "succeeded", "failed", "canceled", "rejected", "waiting_for_upload", "pending", "initializing"];

export async function jobList(view, ctx) {
  const type = h("select", { name: "type" }, filterOptions("Any type", TYPES));
  const status = h("select", { name: "status" }, filterOptions("Any status", STATUSES));
  type.value = ctx.params.get("type") ?? "";
  status.value = ctx.params.get("status") ?? "";
  const box = h("div");
  const message = h("div", { "aria-live": "polite" });
  const request = newestRequest();
  const reload = () => load(box, message, { type: type.value, status: status.value }, ctx, request());
  type.addEventListener("change", reload);
  status.addEventListener("change", reload);
  add(
    view,
    h("h1", {}, "Jobs"),
    h("form", { class: "inline", "aria-label": "Filter jobs", onsubmit: (e) => e.preventDefault() }, field("Type", type), field("Status", status)),
    message,
    box,
  );
  await reload();
}

/** `isNewest`: false once another list was asked for (its answer is the one to show). */
async function load(box, message, filters, ctx, isNewest, cursor, rows = []) {
  const q = new URLSearchParams({ limit: "50" });
  for (const [k, v] of Object.entries(filters)) if (v) q.set(k, v);
  if (cursor) q.set("cursor", cursor);
  const page = await api(`/jobs?${q}`);
  if (!ctx.alive() || !isNewest()) return;
  rows.push(...page.items.map((j) => jobRow(j, message, () => load(box, message, filters, ctx, isNewest))));
  const more = page.next_cursor
    ? h("button", { type: "button", onclick: () => load(box, message, filters, ctx, isNewest, page.next_cursor, rows) }, "Load more")
    : null;
  fill(box, table("Jobs, newest first", ["Job", "Type", "Status", "Progress", "About", "Created", "Actions"], rows, { cards: true }), more);
}

function jobRow(j, message, reload) {
  const about = j.model_id
    ? h("a", { href: `#/models/${j.model_id}` }, "model")
    : j.dataset_id
      ? h("a", { href: `#/datasets/${j.dataset_id}` }, j.dataset_name ?? "dataset")
      : "—";
  return [
    h("a", { href: `#/jobs/${j.id}`, "aria-label": `Job ${shortId(j.id)}` }, shortId(j.id)),
    j.type,
    badge(j.status),
    j.progress === null ? "—" : `${Math.round(j.progress)}%`,
    about,
    fmtDate(j.created_at),
    actions(j, message, reload),
  ];
}

/** Cancel for a job still going, Retry for a failed one; the answer is announced in `message`. */
function actions(j, message, after) {
  const act = (verb) => async () => {
    try {
      const r = await api(`/jobs/${j.id}/${verb}`, { method: "POST" });
      fill(message, notice(verb === "cancel" ? `Job ${shortId(j.id)} canceled.` : `Retried as job ${shortId(r.job_id)} (${r.status}).`));
      await after();
    } catch (err) {
      fill(message, notice(err.message, "error"));
    }
  };
  return [
    TERMINAL.includes(j.status)
      ? null
      : h("button", { type: "button", class: "small danger", onclick: act("cancel"), "aria-label": `Cancel job ${shortId(j.id)}` }, "Cancel"),
    j.status === "failed"
      ? h("button", { type: "button", class: "small", onclick: act("retry"), "aria-label": `Retry job ${shortId(j.id)}` }, "Retry")
      : null,
  ];
}

export async function jobDetail(view, id, ctx) {
  const job = await api(`/jobs/${id}`);
  if (!ctx.alive()) return;
  const message = h("div", { "aria-live": "polite" });
  const facts = h("dl", { class: "facts" });
  const showFacts = (j) =>
    fill(
      facts,
      [
        ["Type", j.type],
        ["Status", badge(j.status)],
        ["Progress", j.progress === null ? "—" : `${fmtNum(j.progress)}%`],
        ["Created", fmtDate(j.created_at)],
        ["Finished", fmtDate(j.finished_at)],
        ["Model", j.model_id ? h("a", { href: `#/models/${j.model_id}` }, j.model_id) : "—"],
        ["Dataset", j.dataset_id ? h("a", { href: `#/datasets/${j.dataset_id}` }, j.dataset_name ?? j.dataset_id) : "—"],
      ].map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]),
    );
  showFacts(job);
  add(
    view,
    h("h1", {}, `Job ${shortId(job.id)}`),
    facts,
    h(
      "p",
      { class: "actions" },
      actions(job, message, () => route()),
    ),
    message,
  );
  if (job.type === "train") {
    // A prediction model's search: its trials, once the job has ended (the panel says when).
    const search = h("div", { id: "model-search" }, searchSection(job));
    add(view, await trainingJobPanel(job, ctx, (j) => fill(search, searchSection(j))), search);
  }
  const output = h("pre", { class: "json", tabindex: 0, "aria-label": "Job output" });
  const showOutput = (j) => {
    output.textContent = JSON.stringify({ error_message: j.error_message, output: j.output, explanations: j.explanations }, null, 2);
  };
  showOutput(job);
  add(view, h("h2", {}, "Output"), output);
  if (!TERMINAL.includes(job.status) && job.type !== "train") {
    pollJob(
      id,
      (j) => {
        showFacts(j);
        showOutput(j);
      },
      ctx.alive,
    ).catch((err) => fill(message, notice(err.message, "error")));
  }
}

// After cancel or retry on the detail page, render it again (same hash: no hashchange).
const route = () => window.dispatchEvent(new HashChangeEvent("hashchange"));
