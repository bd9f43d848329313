import { and, eq, lt, or, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";

/**
 * Cursor paging of every list: rows are ordered by (created_at, id) descending, and a cursor is
 * the position after the last row of a page, opaque to clients.
 */
export interface Cursor {
  createdAt: string;
  id: string;
}

function encodeCursor(c: Cursor): string {
  return btoa(JSON.stringify([c.createdAt, c.id])).replace(/=+$/, "");
}

/** The position a cursor names, or null when the string is not a cursor this service made. */
export function decodeCursor(raw: string): Cursor | null {
  try {
    const [createdAt, id] = JSON.parse(atob(raw));
    if (typeof createdAt === "string" && typeof id === "string") return { createdAt, id };
  } catch {
    // not base64 or not JSON: not one of ours
  }
  return null;
}

/** What a list asks for: a page size and where to start (the routes have checked the cursor). */
export interface PageRequest {
  limit: number;
  cursor?: string;
}

export interface Page<U> {
  items: U[];
  next_cursor: string | null;
}

/** Rows strictly after the cursor in (created_at, id) descending order (routes refuse a cursor that does not decode, with a 422). */
export function afterCursor(createdAt: SQLiteColumn, id: SQLiteColumn, raw: string | undefined): SQL | undefined {
  const cursor = raw === undefined ? null : decodeCursor(raw);
  if (!cursor) return undefined;
  return or(lt(createdAt, cursor.createdAt), and(eq(createdAt, cursor.createdAt), lt(id, cursor.id)));
}

/** A page from limit + 1 rows: the extra one tells whether another page exists. */
export function toPage<T extends { createdAt: string; id: string }, U>(rows: T[], limit: number, present: (row: T) => U): Page<U> {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map(present),
    next_cursor: rows.length > limit && last ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null,
  };
}

/**
 * Version lists page the same way, by version number descending instead: a number is unique
 * within its dataset or model and, unlike created_at, never ties. Their cursor is the last number
 * shown (a one-element array, so that a cursor of another list is refused).
 */
export function decodeVersionCursor(raw: string): number | null {
  try {
    const position = JSON.parse(atob(raw));
    if (Array.isArray(position) && position.length === 1 && Number.isInteger(position[0])) return position[0];
  } catch {
    // not base64 or not JSON: not one of ours
  }
  return null;
}

/** Versions strictly older than the cursor's (routes refuse a cursor that does not decode, with a 422). */
export function beforeVersion(version: SQLiteColumn, raw: string | undefined): SQL | undefined {
  const last = raw === undefined ? null : decodeVersionCursor(raw);
  return last === null ? undefined : lt(version, last);
}

/** A page of versions from limit + 1 rows ordered by version descending. */
export function toVersionPage<T extends { version: number }, U>(rows: T[], limit: number, present: (row: T) => U): Page<U> {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map(present),
    next_cursor: rows.length > limit && last ? btoa(JSON.stringify([last.version])).replace(/=+$/, "") : null,
  };
}
