/** What the CLI prints, and how it ends: the documented exit codes. */
import { ApiError, ConnectionFailedError, describeDetail, JobFailedError } from "../errors.js";

export const EXIT = {
  ok: 0,
  /** The service answered with an error (its `detail` is printed). */
  api: 1,
  /** Bad arguments or options, or not logged in. */
  usage: 2,
  /** A job that was waited for failed or was canceled. */
  jobFailed: 3,
  /** The service could not be reached. */
  network: 4,
} as const;

/** A mistake in how the command was called (exit 2). */
export class UsageError extends Error {}

export const state = { json: false };

function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

const cell = (v: unknown): string => (v === null || v === undefined ? "" : typeof v === "object" ? JSON.stringify(v) : String(v));

/** Rows as aligned columns (the given keys, in order). */
export function printTable(rows: Record<string, unknown>[], columns: string[]): void {
  if (rows.length === 0) {
    process.stdout.write("(none)\n");
    return;
  }
  const text = rows.map((r) => columns.map((c) => cell(r[c])));
  const widths = columns.map((c, i) => Math.min(60, Math.max(c.length, ...text.map((t) => t[i]!.length))));
  const line = (cells: string[]) =>
    cells
      .map((s, i) => (s.length > widths[i]! ? `${s.slice(0, widths[i]! - 1)}…` : s.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  process.stdout.write(`${[line(columns.map((c) => c.toUpperCase())), ...text.map(line)].join("\n")}\n`);
}

/** One object as `key: value` lines (nested values as compact JSON). */
export function printRecord(obj: Record<string, unknown>, keys = Object.keys(obj)): void {
  const width = Math.max(...keys.map((k) => k.length));
  for (const k of keys) if (obj[k] !== undefined) process.stdout.write(`${k.padEnd(width)}  ${cell(obj[k])}\n`);
}

/** `--json`: the value as is; otherwise what `human` prints. */
export function show(value: unknown, human: () => void): void {
  if (state.json) printJson(value);
  else human();
}

/** An error as one clear line on stderr (never a stack trace), and its exit code. */
export function fail(err: unknown): number {
  let code: number = EXIT.api;
  let message: string;
  if (err instanceof ApiError) message = `Error ${err.status}: ${describeDetail(err.detail)}`;
  else if (err instanceof JobFailedError) {
    code = EXIT.jobFailed;
    message = err.message;
  } else if (err instanceof UsageError) {
    code = EXIT.usage;
    message = err.message;
  } else if (err instanceof ConnectionFailedError) {
    code = EXIT.network;
    message = `Could not reach the service: ${err.message}`;
  } else if (err instanceof TypeError && /fetch failed/i.test(err.message)) {
    code = EXIT.network;
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    message = `Could not reach the service: ${cause?.code ?? cause?.message ?? err.message}`;
  } else message = err instanceof Error ? err.message : String(err);
  if (state.json)
    process.stderr.write(
      `${JSON.stringify({ error: message, exit_code: code, ...(err instanceof ApiError ? { status: err.status, detail: err.detail } : {}) })}\n`,
    );
  else process.stderr.write(`${message}\n`);
  return code;
}
