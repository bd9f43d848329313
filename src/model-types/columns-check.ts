/**
 * Request checks every type shares: the profile's columns by name, and the input columns a train
 * request names, which must exist. Field paths name the train request's fields.
 */
import { InvalidInput } from "../core/errors";
import type { ColumnProfile } from "../ml/profile";

export function columnsByName(profile: ColumnProfile[]): Map<string, ColumnProfile> {
  return new Map(profile.map((c) => [c.name, c]));
}

/** The input columns the request names that are not in the dataset: a 422 listing the dataset's columns. */
export function checkInputColumnsExist(profile: ColumnProfile[], inputColumns: string[] | null, listed = allColumns): void {
  if (!inputColumns) return;
  const byName = columnsByName(profile);
  const unknown = inputColumns.filter((c) => !byName.has(c));
  if (unknown.length) {
    throw InvalidInput.field(["input_columns"], `Columns not in the dataset: ${unknown.join(", ")}; its columns are: ${listed(profile)}`, unknown);
  }
}

/** Every column of the dataset, by name. */
export function allColumns(profile: ColumnProfile[]): string {
  return profile.map((c) => c.name).join(", ");
}

/** The dataset's columns, the first 30 of a wide table and how many there are. */
export function firstColumns(profile: ColumnProfile[]): string {
  const names = profile.map((c) => c.name);
  return names.length > 30 ? `${names.slice(0, 30).join(", ")}, … (${names.length} in all)` : names.join(", ");
}
