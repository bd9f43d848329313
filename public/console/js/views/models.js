/** Models: list, the train form (label picked from the dataset's columns), and a model's detail. */
import { api } from "../api.js";
import { add, badge, field, fill, filterOptions, fmtDate, fmtNum, h, notice, table } from "../dom.js";
import { searchSection } from "./search-trials.js";
import { trainingJobPanel } from "./train-progress.js";

const MODEL_TYPES = ["prediction", "anomaly", "embedding", "clustering", "factors", "search", "causal"];
// GET /models?status= takes these (a model's status follows its current version).
const STATUSES = ["queued", "processing", "ready", "failed"];
// The types whose label_column means something (the target; the outcome for causal).
const NEEDS_LABEL = ["prediction", "causal"];

const metricsText = (m) =>
  Object.entries(m ?? {})
    .map(([k, v]) => `${k} ${fmtNum(v)}`)
    .join(", ") || "—";

export async function modelList(view, ctx) {
  const type = h("select", { name: "model_type" }, filterOptions("Any type", MODEL_TYPES));
  const status = h("select", { name: "status" }, filterOptions("Any status", STATUSES));
  type.value = ctx.params.get("model_type") ?? "";
  status.value = ctx.params.get("status") ?? "";
  const box = h("div");
  add(
    view,
    h("h1", {}, "Models"),
    h("p", { class: "actions" }, h("a", { class: "button", href: "#/models/new" }, "Train a model")),
    h(
      "form",
      { class: "inline", "aria-label": "Filter models", onsubmit: (e) => e.preventDefault() },
      field("Model type", type),
      field("Status", status),
    ),
    box,
  );
  let rows = [];
  // A newer filter's answer replaces the list; an older one that arrives late is dropped.
  let current = 0;
  const load = async (cursor) => {
    const mine = cursor ? current : ++current;
    if (!cursor) rows = [];
    const q = new URLSearchParams({ limit: "50" });
    if (type.value) q.set("model_type", type.value);
    if (status.value) q.set("status", status.value);
    if (cursor) q.set("cursor", cursor);
    const page = await api(`/models?${q}`);
    if (!ctx.alive() || mine !== current) return;
    rows.push(
      ...page.items.map((m) => [
        h("a", { href: `#/models/${m.model_id}` }, m.model_name),
        m.model_type,
        badge(m.status),
        m.training_dataset_name ?? "—",
        metricsText(m.current_metrics),
        m.current_version ? `v${m.current_version.version}` : "—",
        fmtDate(m.created_at),
      ]),
    );
    const more = page.next_cursor ? h("button", { type: "button", onclick: () => load(page.next_cursor) }, "Load more") : null;
    const filtered = [type.value, status.value].filter(Boolean).join(", ");
    const caption = filtered ? `Models (${filtered}), newest first` : "Models, newest first";
    fill(box, table(caption, ["Name", "Type", "Status", "Dataset", "Metrics", "Version", "Created"], rows, { cards: true }), more);
  };
  const reload = () => load().catch((err) => fill(box, notice(err.message, "error")));
  type.addEventListener("change", reload);
  status.addEventListener("change", reload);
  await load();
}

export async function trainForm(view, ctx) {
  const datasets = (await api("/datasets?limit=200")).items.filter((d) => d.current_version?.status === "ready");
  if (!ctx.alive()) return;
  const name = h("input", { type: "text", name: "model_name", required: true, autocomplete: "off" });
  const type = h(
    "select",
    { name: "model_type" },
    MODEL_TYPES.map((t) => h("option", { value: t }, t)),
  );
  const dataset = h(
    "select",
    { name: "dataset_id", required: true },
    h("option", { value: "" }, "Choose a dataset…"),
    datasets.map((d) => h("option", { value: d.dataset_id }, `${d.name} (${fmtNum(d.current_version.row_count)} rows)`)),
  );
  const label = h("select", { name: "label_column" });
  const labelField = field("Label column (what to predict; the outcome for causal)", label);
  const params = h("textarea", { name: "params", rows: 3, spellcheck: "false", placeholder: '{"max_rounds": 200}' });
  const out = h("div", { class: "stack", "aria-live": "polite" });

  const showLabel = () => (labelField.hidden = !NEEDS_LABEL.includes(type.value));
  const loadColumns = async () => {
    fill(label, h("option", { value: "" }, dataset.value ? "Loading columns…" : "Choose a dataset first"));
    if (!dataset.value) return;
    const d = await api(`/datasets/${dataset.value}`);
    fill(
      label,
      (d.columns ?? []).map((c) => h("option", { value: c.name }, `${c.name} (${c.type})`)),
    );
    // The last column is the usual place of a target.
    if (label.options.length) label.selectedIndex = label.options.length - 1;
  };
  type.addEventListener("change", showLabel);
  dataset.addEventListener("change", loadColumns);
  dataset.value = ctx.params.get("dataset") ?? "";
  showLabel();
  await loadColumns();

  const onsubmit = async (e) => {
    e.preventDefault();
    const body = { model_name: name.value.trim(), model_type: type.value, dataset_id: dataset.value };
    if (NEEDS_LABEL.includes(type.value)) body.label_column = label.value;
    try {
      if (params.value.trim()) body.params = JSON.parse(params.value);
    } catch {
      fill(out, notice("Parameters must be a JSON object.", "error"));
      params.focus();
      return;
    }
    try {
      const started = await api("/models/train", { method: "POST", json: body });
      location.hash = `#/models/${started.model.id}`;
    } catch (err) {
      fill(out, notice(err.message, "error"));
    }
  };
  add(
    view,
    h("h1", {}, "Train a model"),
    datasets.length ? null : notice("No ready dataset yet: upload one under Datasets first."),
    h(
      "form",
      { class: "card stack", onsubmit },
      field("Model name", name),
      field("Model type", type),
      field("Dataset", dataset),
      labelField,
      field("Parameters (JSON, optional)", params, "Per type, as in the README; unknown keys are refused."),
      h("button", { type: "submit" }, "Start training"),
      out,
    ),
  );
}

export async function modelDetail(view, id, ctx) {
  const [m, versions, jobs] = await Promise.all([
    api(`/models/${id}`),
    api(`/models/${id}/versions`),
    api(`/jobs?model_id=${encodeURIComponent(id)}&type=train&limit=1`),
  ]);
  if (!ctx.alive()) return;
  add(
    view,
    h("h1", {}, m.model_name),
    h(
      "dl",
      { class: "facts" },
      h("dt", {}, "Type"),
      h("dd", {}, m.model_type),
      h("dt", {}, "Status"),
      h("dd", { id: "model-status" }, badge(m.status)),
      h("dt", {}, "Dataset"),
      h("dd", {}, m.training_dataset_id ? h("a", { href: `#/datasets/${m.training_dataset_id}` }, m.training_dataset_name ?? "dataset") : "—"),
      m.label_column ? [h("dt", {}, "Label"), h("dd", {}, m.label_column)] : null,
    ),
    h("p", { class: "actions" }, h("a", { class: "button", href: `#/infer?model=${m.model_id}` }, "Predict with this model")),
  );
  const job = jobs.items[0];
  if (job) add(view, await trainingJobPanel(job, ctx, (j) => refresh(view, id, ctx, j)));
  add(
    view,
    h("div", { id: "model-metrics" }, metricsTable(m)),
    h("div", { id: "model-search" }, searchSection(job)),
    h("h2", {}, "Versions"),
    versionsTable(versions.items),
  );
}

/** After a training ends: the status, metrics, search and versions as they now are. */
async function refresh(view, id, ctx, job) {
  const [m, versions] = await Promise.all([api(`/models/${id}`), api(`/models/${id}/versions`)]);
  if (!ctx.alive()) return;
  fill(view.querySelector("#model-status"), badge(m.status));
  fill(view.querySelector("#model-metrics"), metricsTable(m));
  fill(view.querySelector("#model-search"), searchSection(job));
  view.querySelector("#versions")?.replaceWith(versionsTable(versions.items));
}

function metricsTable(m) {
  const entries = Object.entries(m.current_metrics ?? {});
  if (entries.length)
    return [
      h("h2", {}, "Metrics"),
      table(
        "Current metrics",
        ["Metric", "Value"],
        entries.map(([k, v]) => [k, fmtNum(v)]),
      ),
    ];
  // Types without metrics describe themselves in the version's summary (threshold, loadings, …).
  const summary = m.current_version?.summary;
  if (!summary) return [h("h2", {}, "Metrics"), h("p", {}, "No metrics yet.")];
  const text = JSON.stringify(summary, null, 2);
  return [
    h("h2", {}, "Summary"),
    h("pre", { class: "json", tabindex: 0, "aria-label": "Model summary" }, text.length > 20_000 ? `${text.slice(0, 20_000)}\n…` : text),
  ];
}

function versionsTable(items) {
  const t = table(
    "Model versions, newest first",
    ["Version", "Status", "Metrics", "Created", "Error"],
    items.map((v) => [`v${v.version}`, badge(v.status), metricsText(v.metrics), fmtDate(v.created_at), v.error_message ?? ""]),
    { cards: true },
  );
  t.id = "versions";
  return t;
}
