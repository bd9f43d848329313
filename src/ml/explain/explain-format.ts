/**
 * Number and value formatting for plain-language explanations (./explain-prediction): at most
 * 4 significant digits, thousands grouped from 10,000 up (so years and 4-digit codes stay as
 * they are), probabilities as percentages, dates without a midnight time.
 */

/** A number with at most `digits` significant digits, no float noise; grouped from 10,000 up. */
export function formatNumber(x: number, digits = 4): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? "missing" : x > 0 ? "infinity" : "-infinity";
  if (x === 0) return "0";
  const r = Number(x.toPrecision(digits));
  const abs = Math.abs(r);
  if (abs >= 1e21 || abs < 1e-6) return r.toExponential(digits - 1).replace(/\.?0+e/, "e");
  let s = String(r);
  if (s.includes("e")) s = r.toFixed(20).replace(/\.?0+$/, "");
  if (abs >= 10_000) {
    const [int, frac] = s.replace("-", "").split(".");
    const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    s = (r < 0 ? "-" : "") + grouped + (frac ? `.${frac}` : "");
  }
  return s;
}

/** A number with as few significant digits (4 to 7) as show it exactly: flip values must not be misstated. */
export function formatExact(x: number): string {
  for (let d = 4; d < 7; d++) if (Number(x.toPrecision(d)) === x) return formatNumber(x, d);
  return formatNumber(x, 7);
}

/** A signed contribution, 3 significant digits: "+85.2", "-0.0123". */
export function formatSigned(x: number): string {
  const s = formatNumber(x, 3);
  return x > 0 ? `+${s}` : s;
}

/** A probability as a percentage: "83%", "99.7%", ">99.9%", "<0.1%" (1 decimal near 0 and 100). */
export function formatPercent(p: number): string {
  if (p <= 0 || p >= 1) return p <= 0 ? "0%" : "100%";
  const pct = p * 100;
  if (pct < 0.1) return "<0.1%";
  if (pct > 99.9) return ">99.9%";
  if (pct < 0.5 || pct >= 99.5) return `${pct.toFixed(1)}%`;
  return `${Math.round(pct)}%`;
}

/** An ISO timestamp as a date, with the time only when it is not midnight UTC. */
export function formatDate(iso: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2}(?:\.\d+)?)?Z$/.exec(iso);
  if (!m) return iso;
  const [, date, hm, sec] = m;
  if (hm === "00:00" && (!sec || Number(sec.slice(1)) === 0)) return date;
  return `${date} ${hm}`;
}

const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/** Name of a day of week (0 = Sunday), or the number when out of range. */
export function weekdayName(d: number): string {
  return WEEKDAYS[d] ?? String(d);
}

/** UTC date (YYYY-MM-DD) of a number of days since 1970-01-01. */
export function dateOfEpochDays(days: number): string {
  return new Date(days * 86_400_000).toISOString().slice(0, 10);
}
