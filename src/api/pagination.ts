import { and, eq, lt, or, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { z } from "zod";
import { invalid } from "./errors";

/** Query fields shared by every paged list. */
export const pageQuery = {
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().min(1).optional(),
};

/** Position after the last item of a page: lists are ordered by (created_at, id) descending. */
export interface Cursor {
  createdAt: string;
  id: string;
}

export function encodeCursor(c: Cursor): string {
  return btoa(JSON.stringify([c.createdAt, c.id])).replace(/=+$/, "");
}

export function decodeCursor(raw: string | undefined): Cursor | undefined {
  if (raw === undefined) return undefined;
  try {
    const [createdAt, id] = JSON.parse(atob(raw));
    if (typeof createdAt === "string" && typeof id === "string") return { createdAt, id };
  } catch {
    // fall through to the 422 below
  }
  throw invalid(["query", "cursor"], "Invalid cursor: pass the next_cursor of a previous page unchanged", raw);
}

/** Fetch limit + 1 rows; the extra one tells whether another page exists. */
export function toPage<T extends { createdAt: string; id: string }, U>(
  rows: T[],
  limit: number,
  present: (row: T) => U,
): { items: U[]; next_cursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map(present),
    next_cursor: rows.length > limit && last ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null,
  };
}

/** Rows strictly after the cursor in (created_at, id) descending order. */
export function afterCursor(createdAt: SQLiteColumn, id: SQLiteColumn, cursor: Cursor | undefined): SQL | undefined {
  if (!cursor) return undefined;
  return or(lt(createdAt, cursor.createdAt), and(eq(createdAt, cursor.createdAt), lt(id, cursor.id)));
}
