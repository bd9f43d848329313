import Papa from "papaparse";

export type Newline = "\n" | "\r\n" | "\r";

/** The line ending of the first line (files mixing endings are rare and then fail as ragged). */
export function detectNewline(text: string): Newline {
  const lf = text.indexOf("\n");
  if (lf > 0 && text[lf - 1] === "\r") return "\r\n";
  if (lf < 0 && text.includes("\r")) return "\r";
  return "\n";
}

/** Delimiters we recognise, in order of preference when equally plausible. */
const DELIMITERS = [",", ";", "\t", "|"] as const;

/**
 * Picks the delimiter that splits the sample's first lines into the most consistent rows: the
 * share of rows with as many fields as the header, then the header's width. A delimiter giving a
 * one-field header never wins, so a one-column file falls through to "," and fails as such.
 */
export function detectDelimiter(sample: string, newline: Newline): string {
  let best: string = ",";
  let bestScore = -1;
  let bestWidth = 1;
  for (const delimiter of DELIMITERS) {
    const parser = new Papa.Parser({ delimiter, newline, preview: 20 });
    const rows: string[][] = parser.parse(sample, 0, false).data.filter((r: string[]) => !(r.length === 1 && r[0].trim() === ""));
    if (rows.length === 0 || rows[0].length < 2) continue;
    const width = rows[0].length;
    const body = rows.slice(1);
    const score = body.length === 0 ? 1 : body.filter((r) => r.length === width).length / body.length;
    if (score > bestScore || (score === bestScore && width > bestWidth)) {
      best = delimiter;
      bestScore = score;
      bestWidth = width;
    }
  }
  return best;
}
