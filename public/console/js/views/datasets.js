/** Datasets: list with search, upload with progress, and one dataset's column profile and preview. */
import { api, newestRequest, pollJob, putSigned, upload } from "../api.js";
import { add, badge, field, fill, fmtDate, fmtNum, h, notice, progressBar, table } from "../dom.js";

// Direct uploads take 30 MB; larger files go through the signed-URL flow: prepare, PUT straight to
// the bucket, complete (README: the bucket's CORS rule and the page's connect-src it needs).
const DIRECT_LIMIT = 30 * 1024 * 1024;

// The media type the service reads for a file name, when the browser gives none (Parquet).
const TYPES = {
  csv: "text/csv",
  tsv: "text/tab-separated-values",
  txt: "text/plain",
  parquet: "application/vnd.apache.parquet",
  pq: "application/vnd.apache.parquet",
};
const contentTypeOf = (f) => f.type || TYPES[f.name.split(".").pop().toLowerCase()] || "text/csv";

export async function datasetList(view, ctx) {
  const listBox = h("div");
  const search = h("input", { type: "search", name: "search", autocomplete: "off" });
  const request = newestRequest();
  const reload = () => loadList(listBox, search.value.trim(), ctx, request());
  let timer;
  search.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(reload, 250);
  });
  add(
    view,
    h("h1", {}, "Datasets"),
    uploadForm(ctx, reload),
    h("h2", {}, "Your datasets"),
    h("form", { role: "search", class: "inline", onsubmit: (e) => e.preventDefault() }, field("Search by name", search)),
    listBox,
  );
  await reload();
}

/** `isNewest`: false once another list was asked for (its answer is the one to show). */
async function loadList(box, term, ctx, isNewest, cursor, rows = []) {
  const q = new URLSearchParams({ limit: "50" });
  if (term) q.set("search", term);
  if (cursor) q.set("cursor", cursor);
  const page = await api(`/datasets?${q}`);
  if (!ctx.alive() || !isNewest()) return;
  rows.push(
    ...page.items.map((d) => [
      h("a", { href: `#/datasets/${d.dataset_id}` }, d.name),
      d.current_version ? badge(d.current_version.status) : "—",
      fmtNum(d.current_version?.row_count),
      fmtNum(d.current_version?.column_count),
      d.current_version ? `v${d.current_version.version_number}` : "—",
      fmtDate(d.created_at),
    ]),
  );
  const more = page.next_cursor
    ? h("button", { type: "button", onclick: () => loadList(box, term, ctx, isNewest, page.next_cursor, rows) }, "Load more")
    : null;
  fill(
    box,
    table(term ? `Datasets matching “${term}”` : "Datasets, newest first", ["Name", "Status", "Rows", "Columns", "Version", "Created"], rows, {
      cards: true,
    }),
    more,
  );
}

/** onDone: after a successful ingestion (the list below shows the new dataset). */
function uploadForm(ctx, onDone) {
  const file = h("input", { type: "file", name: "file", accept: ".csv,.parquet,text/csv", required: true });
  const name = h("input", { type: "text", name: "dataset_name", required: true, autocomplete: "off" });
  const out = h("div", { class: "stack", "aria-live": "polite" });
  file.addEventListener("change", () => {
    if (file.files[0] && !name.value) name.value = file.files[0].name.replace(/\.(csv|parquet)$/i, "");
  });
  const onsubmit = async (e) => {
    e.preventDefault();
    const f = file.files[0];
    if (!f) return;
    const bar = progressBar(`Uploading ${f.name}`, 0);
    fill(out, bar);
    try {
      const send = f.size > DIRECT_LIMIT ? uploadSigned : uploadDirect;
      const started = await send(f, name.value.trim(), (pct) => bar.set(pct));
      bar.set(100, "uploaded");
      const ingest = progressBar("Ingesting", null);
      out.append(ingest);
      const job = await pollJob(started.job_id, (j) => ingest.set(j.progress, j.status), ctx.alive, 500);
      if (job?.status === "succeeded") {
        const done = h("p", { class: "notice success", role: "status" }, `${name.value.trim()} is ready: `);
        done.append(h("a", { href: `#/datasets/${started.dataset.id}` }, "open its profile and preview"));
        out.append(done);
        onDone();
      } else if (job) out.append(notice(`Ingestion ${job.status}: ${job.error_message ?? ""}`, "error"));
    } catch (err) {
      out.append(notice(err.message, "error"));
    }
  };
  return h(
    "form",
    { class: "card stack", onsubmit, "aria-labelledby": "upload-title" },
    h("h2", { id: "upload-title" }, "Upload a table"),
    field("CSV or Parquet file", file, "Over 30 MB it goes straight to storage through a signed URL."),
    field("Dataset name", name),
    h("button", { type: "submit" }, "Upload"),
    out,
  );
}

/** One multipart POST. Answers { job_id, dataset: { id } }. */
function uploadDirect(f, name, onProgress) {
  const form = new FormData();
  form.append("file", f);
  form.append("dataset_name", name);
  return upload("/datasets", form, onProgress);
}

/** Prepare a signed URL, PUT the file to it, complete. Answers { job_id, dataset: { id } }. */
async function uploadSigned(f, name, onProgress) {
  const file = { filename: f.name, bytes: f.size, content_type: contentTypeOf(f) };
  const prepared = await api("/datasets/upload", { method: "POST", json: { dataset_name: name, file } });
  await putSigned(prepared.upload.upload_url, f, prepared.upload.headers, onProgress);
  const done = await api(`/datasets/${prepared.dataset.version_id}/complete`, { method: "POST" });
  return { job_id: done.job_id, dataset: { id: done.dataset_id } };
}

export async function datasetDetail(view, id, ctx) {
  const d = await api(`/datasets/${id}`);
  if (!ctx.alive()) return;
  const v = d.current_version;
  add(
    view,
    h("h1", {}, d.name),
    h(
      "dl",
      { class: "facts" },
      h("dt", {}, "Status"),
      h("dd", {}, v ? badge(v.status) : "no version"),
      h("dt", {}, "Rows × columns"),
      h("dd", {}, v ? `${fmtNum(v.row_count)} × ${fmtNum(v.column_count)}` : "—"),
      h("dt", {}, "Version"),
      h("dd", {}, v ? `v${v.version_number}` : "—"),
      h("dt", {}, "Source"),
      h("dd", {}, d.source_filename ?? "—"),
    ),
    d.error_message ? notice(d.error_message, "error") : null,
    h("p", { class: "actions" }, h("a", { class: "button", href: `#/models/new?dataset=${d.dataset_id}` }, "Train a model on this dataset")),
  );
  if (d.columns) {
    add(
      view,
      h("h2", {}, "Column profile"),
      table(
        "Column profile",
        ["Column", "Type", "Missing", "Distinct", "Min", "Max", "Mean", "Top values"],
        d.columns.map((c) => [
          c.name,
          c.type,
          fmtNum(c.missing_count),
          fmtNum(c.distinct_count),
          fmtNum(c.min),
          fmtNum(c.max),
          fmtNum(c.mean),
          (c.top_values ?? []).map((t) => `${t.value} (${t.count})`).join(", ") || "—",
        ]),
        { cards: true },
      ),
    );
  }
  if (v?.status !== "ready") return;
  const p = await api(`/datasets/${id}/preview?limit=20`);
  if (!ctx.alive()) return;
  const cols = p.columns.map((c) => c.name);
  add(
    view,
    h("h2", {}, `Preview (${p.rows.length} of ${fmtNum(p.total_rows)} rows)`),
    table(
      "First rows",
      cols,
      p.rows.map((r) => cols.map((c) => fmtNum(r[c]))),
    ),
  );
}
