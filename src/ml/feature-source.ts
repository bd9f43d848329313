/**
 * How a frame column reads as the source of a feature, whatever storage it arrives in.
 *
 * Why this exists: an inference file is read on its own, so a column's storage need not match
 * training. The service reads inference files with every column kept as raw text (dictionary
 * storage), and a typed read can also disagree (a categorical `yes/no/unknown` column with only
 * yes/no rows arrives as boolean). The featurizer is therefore the ONE place that interprets raw
 * strings, and it does so with ingestion's own cell rules (./values), so a value featurizes
 * the same whether ingestion typed it or it arrives as text:
 * - numeric feature from strings  -> parseNumber (missing markers, non-numbers -> NaN);
 * - boolean feature from strings  -> ingestion's true/false pairs (true/false, yes/no, t/f, y/n,
 *   any case), plus 0/1;
 * - datetime feature from strings -> parseDatetime (ISO-8601, zone-less = UTC);
 * - categorical feature from strings -> the vocabulary by string, trimmed like ingestion trims.
 */

import type { Column } from "./frame";
import { booleanValues, normalizeCell, parseDatetime, parseNumber } from "./values";

/** The value a source column stands for, before any datetime part is taken. */
export type SourceType = "numeric" | "boolean" | "datetime";

/** A boolean cell as ingestion reads it (one of its true/false pairs), or 0/1; else undefined. */
function parseBooleanCell(s: string): number | undefined {
  const b = booleanValues([s]);
  if (b) return b[0];
  const x = parseNumber(s);
  return x === 0 || x === 1 ? x : undefined;
}

const PARSERS: Record<SourceType, (s: string) => number | undefined> = {
  numeric: parseNumber,
  boolean: parseBooleanCell,
  datetime: parseDatetime,
};

/** One value per dictionary entry (NaN = missing or unreadable), read with ingestion's rules. */
export function parseDictionary(dictionary: readonly string[], type: SourceType): Float64Array {
  const parse = PARSERS[type];
  return Float64Array.from(dictionary, (raw) => {
    const s = normalizeCell(raw);
    return s === null ? NaN : (parse(s) ?? NaN);
  });
}

/**
 * Writes the category code of each row (NaN = missing, unseen or outside the vocabulary) into
 * column j of the row-major matrix `data` with F columns.
 */
export function fillCategory(data: Float32Array, F: number, j: number, n: number, col: Column, vocabulary: string[]): void {
  const index = new Map<string, number>();
  vocabulary.forEach((s, i) => index.set(s, i));
  if (col.storage === "dictionary") {
    const map = new Float64Array(col.dictionary.length);
    for (let c = 0; c < map.length; c++) {
      const raw = col.dictionary[c];
      // exact first (a typed frame is already normalized), then as ingestion would have kept it
      let code = index.get(raw);
      if (code === undefined) {
        const s = normalizeCell(raw);
        code = s === null ? undefined : index.get(s);
      }
      map[c] = code ?? NaN;
    }
    for (let i = 0; i < n; i++) {
      const c = col.codes[i];
      data[i * F + j] = c < 0 ? NaN : map[c];
    }
    return;
  }
  // Numeric storage for a column that was categorical in training (its inference file was typed
  // on its own). The original spelling is lost, so the value is matched to the vocabulary entry
  // that READS as the same value under ingestion's rules ("2.50" for 2.5, "yes" for true), else by
  // its default spelling (String(x), "true"/"false", ISO date). Limitation: when several entries
  // read as the same value ("2.5" and "2.50", "yes" and "true"), all rows go to the most frequent
  // one; reading the inference file as raw text avoids this.
  const kind = col.kind === "boolean" ? "boolean" : col.kind === "datetime" ? "datetime" : "numeric";
  const parse = PARSERS[kind];
  const byValue = new Map<number, number>();
  // the vocabulary is ordered by training frequency: the first entry for a value wins
  vocabulary.forEach((s, i) => {
    const x = parse(s);
    if (x !== undefined && !byValue.has(x)) byValue.set(x, i);
  });
  const spell = (x: number) =>
    kind === "boolean"
      ? x !== 0
        ? "true"
        : "false"
      : kind === "datetime" && Math.abs(x) <= 8.64e15
        ? new Date(x).toISOString() // Date's valid range
        : String(x);
  const cache = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const x = col.values[i];
    if (x !== x) {
      data[i * F + j] = NaN;
      continue;
    }
    let code = cache.get(x);
    if (code === undefined) {
      code = byValue.get(x) ?? index.get(spell(x)) ?? NaN;
      cache.set(x, code);
    }
    data[i * F + j] = code;
  }
}
