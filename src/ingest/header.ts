import { MAX_COLUMNS, MIN_COLUMNS } from "../core/limits";
import { IngestError } from "./errors";

/**
 * Checks column names before any row is read, so a bad header fails fast with a message that
 * names the culprit. Names are trimmed; comparison is exact (so "Age" and "age" may coexist).
 * Inference files may have a single column (a model may use one feature): `minColumns` 1.
 */
export function validateHeader(raw: readonly string[], what = "file", minColumns = MIN_COLUMNS): string[] {
  const names = raw.map((s) => s.trim());
  if (names.length > MAX_COLUMNS) {
    throw new IngestError(
      "too_many_columns",
      `The ${what} has ${names.length} columns; at most ${MAX_COLUMNS} are supported. If this is unexpected, check the delimiter or whether the table is transposed.`,
    );
  }
  if (names.length < minColumns) {
    throw new IngestError(
      "too_few_columns",
      `The ${what} has only one column ("${names[0] ?? ""}"); a dataset needs at least ${minColumns}. If it should have more, use a comma, semicolon, tab or pipe as the delimiter.`,
    );
  }
  const empty = names.indexOf("");
  if (empty >= 0) {
    throw new IngestError("empty_column_name", `Column ${empty + 1} has an empty name; every column needs a name in the header row.`);
  }
  const firstSeen = new Map<string, number>();
  const dupes: string[] = [];
  names.forEach((s, i) => {
    const first = firstSeen.get(s);
    if (first === undefined) firstSeen.set(s, i);
    else if (dupes.length < 5) dupes.push(`"${s}" (columns ${first + 1} and ${i + 1})`);
  });
  if (dupes.length > 0) {
    throw new IngestError("duplicate_columns", `Duplicate column names: ${dupes.join(", ")}. Column names must be unique.`);
  }
  return names;
}
