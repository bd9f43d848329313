import { expect } from "vitest";
import { readCsv } from "../../src/ingest/csv";
import { IngestError, type IngestErrorCode } from "../../src/ingest/errors";
import type { Column, Frame } from "../../src/ml/frame";

export const BENCH = "/work/shared/bench-data";

export const utf8 = (s: string) => new TextEncoder().encode(s);

export const csv = (text: string) => readCsv(utf8(text));

/** A stream that delivers `bytes` in pieces of `size` bytes (splitting characters and fields). */
export function streamOf(bytes: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

export function col(frame: Frame, name: string): Column {
  const c = frame.columns.find((x) => x.name === name);
  if (!c) throw new Error(`no column ${name}`);
  return c;
}

export const kindOf = (frame: Frame, name: string) => col(frame, name).kind;

/** Plain values of a column (null for missing), via the dictionary or numeric storage. */
export function valuesOf(frame: Frame, name: string): Array<string | number | null> {
  const c = col(frame, name);
  if (c.storage === "dictionary") return Array.from(c.codes, (k) => (k < 0 ? null : c.dictionary[k]));
  return Array.from(c.values, (v) => (Number.isNaN(v) ? null : v));
}

export async function expectIngestError(p: Promise<unknown>, code: IngestErrorCode, message: RegExp): Promise<IngestError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(IngestError);
  const err = e as IngestError;
  expect(err.code).toBe(code);
  expect(err.message).toMatch(message);
  return err;
}
