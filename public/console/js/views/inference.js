/** Inference: a file or one typed row through a model; a typed row can then be explained. */
import { api, upload } from "../api.js";
import { add, field, fill, fmtNum, h, notice, progressBar, table } from "../dom.js";
import { explainRow } from "./explain.js";

const EXPLAINABLE = ["prediction", "causal", "anomaly", "clustering"];

export async function inferenceView(view, ctx) {
  const models = (await api("/models?status=ready&limit=200")).items;
  if (!ctx.alive()) return;
  const select = h(
    "select",
    { name: "model" },
    h("option", { value: "" }, "Choose a model…"),
    models.map((m) => h("option", { value: m.model_id }, `${m.model_name} (${m.model_type})`)),
  );
  const forms = h("div", { class: "stack" });
  add(view, h("h1", {}, "Inference"), models.length ? field("Model", select) : notice("No ready model yet: train one under Models first."), forms);
  select.addEventListener("change", () =>
    showForms(
      forms,
      models.find((m) => m.model_id === select.value),
      ctx,
    ),
  );
  select.value = ctx.params.get("model") ?? "";
  await showForms(
    forms,
    models.find((m) => m.model_id === select.value),
    ctx,
  );
}

async function showForms(box, model, ctx) {
  fill(box);
  if (!model) return;
  const columns = await inputColumns(model);
  if (!ctx.alive()) return;
  box.append(fileForm(model), rowForm(model, columns, ctx));
}

/** The columns a row needs: the version's input columns, else the dataset's minus the label. */
async function inputColumns(model) {
  const versions = (await api(`/models/${model.model_id}/versions`)).items;
  const given = versions.find((v) => v.status === "ready")?.input_columns;
  if (given?.length) return given;
  if (!model.training_dataset_id) return [];
  const d = await api(`/datasets/${model.training_dataset_id}`);
  return (d.columns ?? []).map((c) => c.name).filter((c) => c !== model.label_column);
}

function fileForm(model) {
  const file = h("input", { type: "file", name: "file", accept: ".csv,.parquet,text/csv", required: true });
  const out = h("div", { class: "stack", "aria-live": "polite" });
  const onsubmit = async (e) => {
    e.preventDefault();
    const bar = progressBar("Uploading", 0);
    fill(out, bar);
    const form = new FormData();
    form.append("file", file.files[0]);
    form.append("output_type", "json");
    try {
      const res = await upload(`/models/${model.model_id}/infer`, form, (p) => bar.set(p));
      bar.set(100, `done in ${res.latency_ms} ms`);
      out.append(resultsTable(res.data));
    } catch (err) {
      out.append(notice(err.message, "error"));
    }
  };
  return h(
    "form",
    { class: "card stack", onsubmit, "aria-labelledby": "infer-file-title" },
    h("h2", { id: "infer-file-title" }, "Predict from a file"),
    field("CSV or Parquet file", file),
    h("button", { type: "submit" }, "Run inference"),
    out,
  );
}

function rowForm(model, columns, ctx) {
  const inputs = columns.map((c) => h("input", { type: "text", name: c, autocomplete: "off" }));
  const out = h("div", { class: "stack", "aria-live": "polite" });
  const onsubmit = async (e) => {
    e.preventDefault();
    const csv = `${columns.map(csvCell).join(",")}\n${inputs.map((i) => csvCell(i.value)).join(",")}\n`;
    const form = new FormData();
    form.append("file", new File([csv], "row.csv", { type: "text/csv" }));
    form.append("output_type", "json");
    try {
      const res = await api(`/models/${model.model_id}/infer`, { method: "POST", form });
      fill(out, resultsTable(res.data));
      if (EXPLAINABLE.includes(model.model_type)) {
        const explained = h("div", { class: "stack", "aria-live": "polite" });
        const button = h("button", { type: "button" }, "Explain this prediction");
        button.addEventListener("click", () => explainRow(res.job_id, res.data.id[0], explained, ctx));
        out.append(button, explained);
      }
    } catch (err) {
      fill(out, notice(err.message, "error"));
    }
  };
  return h(
    "form",
    { class: "card stack", onsubmit, "aria-labelledby": "infer-row-title" },
    h("h2", { id: "infer-row-title" }, "Predict one row"),
    h("p", { class: "hint" }, "Leave a field empty for a missing value."),
    h(
      "div",
      { class: "grid" },
      inputs.map((i, k) => field(columns[k], i)),
    ),
    h("button", { type: "submit" }, "Predict"),
    out,
  );
}

const csvCell = (v) => (/[",\n\r]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);

/** The inference answer's `data` (column → array) as rows; the first 200 shown. */
function resultsTable(data) {
  const cols = Object.keys(data);
  const n = data[cols[0]]?.length ?? 0;
  const rows = [];
  for (let i = 0; i < Math.min(n, 200); i++) rows.push(cols.map((c) => cell(data[c][i])));
  return table(n > 200 ? `Predictions (first 200 of ${n} rows)` : `Predictions (${n} row${n === 1 ? "" : "s"})`, cols, rows);
}

const cell = (v) => (Array.isArray(v) ? v.map(fmtNum).join(", ") : fmtNum(v));
