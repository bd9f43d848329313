/**
 * The training loss curve as inline SVG: train and validation loss against the step. A few
 * dozen lines instead of a chart library: the console has no build step and no dependencies.
 */
import { fmtNum, h, s } from "./dom.js";

// The drawing's width follows the screen's, so that its text stays readable on a phone.
const width = () => (window.innerWidth < 640 ? 360 : 720);
const H = 260;
const PAD = { left: 56, right: 16, top: 16, bottom: 40 };
const SERIES = [
  { key: "train_loss", name: "train loss", cls: "train" },
  { key: "val_loss", name: "validation loss", cls: "val" },
];

/** Tick labels short enough for the margin: 3 significant digits, exponents below 0.01. */
const tick = (v) => (v !== 0 && Math.abs(v) < 0.01 ? v.toExponential(1) : Number(v.toPrecision(3)).toString());

/** points: metrics_history ([{step, train_loss, val_loss}], oldest first); title: what the losses are; xLabel: what step counts. */
export function lossChart(points, title = "Loss", xLabel = "step") {
  const W = width();
  const pts = (points ?? []).filter((p) => Number.isFinite(p.step));
  const values = pts.flatMap((p) => SERIES.map((x) => p[x.key]).filter(Number.isFinite));
  const last = pts.at(-1);
  const label = last
    ? `${title}: ${pts.length} points up to step ${last.step}, last train loss ${fmtNum(last.train_loss)}, validation loss ${fmtNum(last.val_loss)}`
    : `${title}: no points yet`;
  const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img", "aria-label": label, "data-points": pts.length });
  if (!values.length) {
    svg.append(s("text", { x: W / 2, y: H / 2, "text-anchor": "middle", class: "muted" }, "Waiting for the first loss values…"));
    return h("figure", { class: "chart-box" }, svg);
  }
  const [x0, x1] = [pts[0].step, Math.max(last.step, pts[0].step + 1)];
  // A loss that falls by orders of magnitude reads on a log scale (else all but the start is flat).
  const log = Math.min(...values) > 0 && Math.max(...values) / Math.min(...values) > 100;
  const t = log ? Math.log10 : (v) => v;
  let [y0, y1] = [t(Math.min(...values)), t(Math.max(...values))];
  if (y1 - y0 < 1e-12) [y0, y1] = [y0 - 0.5, y1 + 0.5];
  const x = (v) => PAD.left + ((v - x0) / (x1 - x0)) * (W - PAD.left - PAD.right);
  const y = (v) => H - PAD.bottom - ((t(v) - y0) / (y1 - y0)) * (H - PAD.top - PAD.bottom);

  // Axes with three ticks each.
  for (let i = 0; i <= 2; i++) {
    const yt = y0 + ((y1 - y0) * i) / 2;
    const yv = log ? 10 ** yt : yt;
    const xv = Math.round(x0 + ((x1 - x0) * i) / 2);
    svg.append(
      s("line", { x1: PAD.left, x2: W - PAD.right, y1: y(yv), y2: y(yv), class: "grid" }),
      s("text", { x: PAD.left - 6, y: y(yv) + 4, "text-anchor": "end", class: "tick" }, tick(yv)),
      s("text", { x: x(xv), y: H - PAD.bottom + 18, "text-anchor": "middle", class: "tick" }, String(xv)),
    );
  }
  svg.append(s("text", { x: (W + PAD.left) / 2, y: H - 6, "text-anchor": "middle", class: "tick" }, xLabel));

  for (const series of SERIES) {
    const d = pts
      .filter((p) => Number.isFinite(p[series.key]))
      .map((p, i) => `${i ? "L" : "M"}${x(p.step).toFixed(1)},${y(p[series.key]).toFixed(1)}`)
      .join("");
    if (d) svg.append(s("path", { d, class: `line ${series.cls}`, "data-series": series.key }));
  }
  const legend = h(
    "figcaption",
    { class: "legend" },
    SERIES.map((x) => h("span", { class: `key ${x.cls}` }, x.name)),
    ` — ${title}, ${xLabel} ${last.step}${log ? ", log scale" : ""}`,
  );
  return h("figure", { class: "chart-box" }, svg, legend);
}

/** Column contributions of an explained row as horizontal bars (positive right, negative left). */
export function contributionBars(contributions) {
  const rows = (contributions ?? []).filter((c) => Number.isFinite(c.contribution)).slice(0, 12);
  const max = Math.max(1e-12, ...rows.map((c) => Math.abs(c.contribution)));
  const rowH = 26;
  const W = width();
  const mid = W / 2;
  const svg = s("svg", {
    viewBox: `0 0 ${W} ${rows.length * rowH + 8}`,
    class: "chart bars",
    role: "img",
    "aria-label": `Column contributions: ${rows.map((c) => `${c.column} ${fmtNum(c.contribution)}`).join(", ")}`,
  });
  rows.forEach((c, i) => {
    const w = (Math.abs(c.contribution) / max) * (W / 4);
    const yy = i * rowH + 4;
    svg.append(
      s("rect", {
        x: c.contribution >= 0 ? mid : mid - w,
        y: yy,
        width: Math.max(w, 1),
        height: rowH - 8,
        class: c.contribution >= 0 ? "pos" : "neg",
      }),
      s("text", { x: 4, y: yy + rowH / 2 + 1, class: "tick" }, `${c.column} = ${c.value ?? "—"}`.slice(0, W / 20)),
      s("text", { x: W - 4, y: yy + rowH / 2 + 1, "text-anchor": "end", class: "tick" }, fmtNum(c.contribution)),
    );
  });
  svg.append(s("line", { x1: mid, x2: mid, y1: 0, y2: rows.length * rowH + 8, class: "axis" }));
  return h("figure", { class: "chart-box" }, svg);
}
