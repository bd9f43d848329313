import type { Page } from "../../db/cursor";

/** A page of service results as the API shows it: the same cursor, each item presented. */
export function presentPage<T, U>(page: Page<T>, present: (item: T) => U): Page<U> {
  return { items: page.items.map(present), next_cursor: page.next_cursor };
}
