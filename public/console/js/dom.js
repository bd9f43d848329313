/** Small DOM helpers: elements are built with h() (text is always set as text, never as HTML). */

/** h("a", { href: "#/x", class: "btn" }, "text", child) — attributes, then children. */
export function h(tag, attrs = {}, ...children) {
  const el = tag === "svg" || attrs.svg ? document.createElementNS("http://www.w3.org/2000/svg", tag) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false || k === "svg") continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "value" && "value" in el) el.value = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  append(el, children);
  return el;
}

/** el.append that skips null/false children (native append would print "null"). */
export const add = (el, ...children) => append(el, children);

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** An SVG child element (chart parts). */
export const s = (tag, attrs = {}, ...children) => h(tag, { ...attrs, svg: true }, ...children);

/** Replaces the children of el. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/**
 * A table in a horizontally scrollable region, with a caption and header cells. `cards`: on a
 * narrow screen each row becomes a card of "column: value" lines (lists), instead of scrolling
 * (wide data tables: previews, predictions). `rowClass(i)`: a class for row i (rows to mark), or null.
 */
export function table(caption, columns, rows, { cards = false, rowClass } = {}) {
  return h(
    "div",
    { class: cards ? "table-wrap cards" : "table-wrap", tabindex: 0, role: "region", "aria-label": caption },
    h(
      "table",
      {},
      h("caption", {}, caption),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          columns.map((c) => h("th", { scope: "col" }, c)),
        ),
      ),
      h(
        "tbody",
        {},
        rows.length
          ? rows.map((r, row) =>
              h(
                "tr",
                { class: rowClass?.(row) },
                r.map((v, i) => h("td", { "data-label": columns[i] }, v)),
              ),
            )
          : h("tr", {}, h("td", { colspan: columns.length }, "Nothing yet.")),
      ),
    ),
  );
}

/** A labelled form field: the label's for= points at the control. */
let fieldId = 0;
export function field(label, control, hint) {
  const id = control.id || `f${++fieldId}`;
  control.id = id;
  const hintEl = hint ? h("small", { id: `${id}-hint`, class: "hint" }, hint) : null;
  if (hintEl) control.setAttribute("aria-describedby", hintEl.id);
  return h("div", { class: "field" }, h("label", { for: id }, label), control, hintEl);
}

/** The <option>s of a filter: "" (labelled `anyLabel`, e.g. "Any status") then each value. */
export const filterOptions = (anyLabel, values) => [h("option", { value: "" }, anyLabel), values.map((v) => h("option", { value: v }, v))];

/** A message region announced to screen readers (role=status, or alert for errors). */
export function notice(text, kind = "info") {
  return h("p", { class: `notice ${kind}`, role: kind === "error" ? "alert" : "status" }, text);
}

export const fmtDate = (iso) => (iso ? new Date(iso).toLocaleString() : "—");
export const fmtNum = (v) =>
  v === null || v === undefined ? "—" : typeof v === "number" ? (Number.isInteger(v) ? String(v) : v.toPrecision(4)) : String(v);
export const shortId = (id) => (id ? String(id).replace(/^job_/, "").slice(0, 8) : "—");

/** A status word styled by its value (queued, running, succeeded, failed, ...). */
export const badge = (status) => h("span", { class: `badge ${status ?? "none"}` }, status ?? "—");

/** <progress> with a visible label and percent text (progress 0–100 or null: indeterminate). */
export function progressBar(label, value) {
  const bar = h("progress", { max: 100, "aria-label": label });
  const text = h("span", { class: "progress-text" });
  const wrap = h("div", { class: "progress" }, h("span", { class: "progress-label" }, label), bar, text);
  wrap.set = (v, note = "") => {
    if (v === null || v === undefined) bar.removeAttribute("value");
    else bar.setAttribute("value", String(v));
    text.textContent = `${v === null || v === undefined ? "" : `${Math.round(v)}%`}${note ? ` ${note}` : ""}`;
  };
  wrap.set(value);
  return wrap;
}
