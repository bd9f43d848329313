import { expect } from "vitest";
import { readCsv } from "../../src/ingest/csv";
import { IngestError, type IngestErrorCode } from "../../src/ingest/errors";
import type { IngestResult } from "../../src/ingest/types";
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

/** Frames equal, numbers compared bit for bit (-0 and 0 differ, NaN equals NaN). */
export function expectSameFrame(got: Frame, want: Frame, what: string): void {
  expect(got.rowCount, what).toBe(want.rowCount);
  expect(
    got.columns.map((c) => [c.name, c.kind, c.storage]),
    what,
  ).toEqual(want.columns.map((c) => [c.name, c.kind, c.storage]));
  for (let j = 0; j < want.columns.length; j++) {
    const g = got.columns[j];
    const w = want.columns[j];
    if (g.storage === "numeric" && w.storage === "numeric") {
      expect(g.values.length, `${what}: ${w.name}`).toBe(w.values.length);
      const gb = new Uint8Array(g.values.buffer, g.values.byteOffset, g.values.byteLength);
      const wb = new Uint8Array(w.values.buffer, w.values.byteOffset, w.values.byteLength);
      // NaN: one bit pattern in both (no NaN payloads come out of parsing).
      if (!Buffer.from(gb).equals(Buffer.from(wb))) {
        const i = g.values.findIndex((v, k) => !Object.is(v, w.values[k]));
        expect(g.values[i], `${what}: ${w.name} row ${i}`).toBe(w.values[i]);
      }
    }
    expect(g, `${what}: ${w.name}`).toEqual(w);
  }
}

/** frameChunks' pieces joined into one buffer (checking they fill exactly its byteLength). */
export function joinChunks(byteLength: number, chunks: Uint8Array[]): Uint8Array {
  const joined = new Uint8Array(byteLength);
  let at = 0;
  for (const c of chunks) joined.set(c, (at += c.length) - c.length);
  expect(at).toBe(byteLength);
  return joined;
}

export type Outcome = { ok: true; result: IngestResult } | { ok: false; code: string; message: string };

/** A read's result, or its IngestError's code and message (to compare two readers' outcomes). */
export async function outcome(p: Promise<IngestResult>): Promise<Outcome> {
  try {
    return { ok: true, result: await p };
  } catch (e) {
    if (!(e instanceof IngestError)) throw e;
    return { ok: false, code: e.code, message: e.message };
  }
}
