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
  return joinedList(
    values.map((v) => (notes[v] ? `\`${v}\` (${notes[v]})` : `\`${v}\``)),
    "or",
    serialComma,
  );
}

/** Items as prose: "a", "a and b", "a, b and c" (with `serialComma`, "a, b, and c"). */
export function joinedList(items: readonly string[], conjunction: "and" | "or", serialComma = false): string {
  if (items.length < 2) return items.join("");
  return `${items.slice(0, -1).join(", ")}${serialComma && items.length > 2 ? "," : ""} ${conjunction} ${items.at(-1)}`;
}
