/**
 * A list of values as the schema descriptions write it, "`a`, `b` or `c`", generated from the
 * list the code uses so that the documented values cannot drift from the real ones.
 */

interface ValueListOptions<V extends string> {
  /** A comma before the "or" too ("`a`, `b`, or `c`"), as the job statuses have it. */
  serialComma?: boolean;
  /** A note in parentheses after a value, which stays with it wherever the value moves in the list. */
  notes?: Partial<Record<V, string>>;
}

export function valueList<V extends string>(values: readonly V[], { serialComma = false, notes = {} }: ValueListOptions<V> = {}): string {
  const items = values.map((v) => (notes[v] ? `\`${v}\` (${notes[v]})` : `\`${v}\``));
  const last = items.pop();
  if (items.length === 0) return last ?? "";
  return `${items.join(", ")}${serialComma ? "," : ""} or ${last}`;
}
