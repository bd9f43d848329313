/**
 * The stored frame's size (issue 13): version 1 (every column raw) against version 2 (columns
 * encoded, src/ingest/column-encoding.ts), with the time to encode (frameChunks, the trainer's
 * path) and to decode (decodeFrame, the training's), and the peak RSS each adds. The table is read
 * as the trainer reads it (readSources, the file streamed in 64 KB chunks), then its profile
 * (ingestSummary) runs, as before an upload. The decoded frame is checked identical, bit for bit.
 *
 * Version 1's size is its layout's: the same header without encodings (to a few bytes), each column's raw
 * buffer padded to 8 bytes. `--write FILE` also writes the version-2 frame (e.g. for
 * bench/large/train-memory.ts --dir).
 *
 * Run: node_modules/node/bin/node --max-old-space-size=6144 --import tsx bench/large/frame-size.ts [--write FILE] FILE...
 * (FILE: .csv or .parquet, e.g. /tmp/bench-large/mixed2_10000000_s13.csv from bench/large/run.ts)
 */
import { createReadStream, readFileSync, statSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { Readable } from "node:stream";
import { ingestSummary } from "../../src/datasets/ingest-job";
import { decodeFrame, frameChunks } from "../../src/ingest/codec";
import { nodeCompressors } from "../../src/ingest/node-compressors";
import { readSources } from "../../src/ingest/read-sources";
import type { Column, Frame } from "../../src/ml/frame";

const argv = process.argv.slice(2);
const writeAt = argv.indexOf("--write");
const writeTo = writeAt >= 0 ? argv.splice(writeAt, 2)[1] : undefined;
const MB = 1024 * 1024;
const align8 = (n: number) => (n + 7) & ~7;

const hwm = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? 0) * 1024;
const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? 0) * 1024;
/** Resets VmHWM to the current RSS (Linux), so the next peak is one step's. */
const resetPeak = () => writeFileSync("/proc/self/clear_refs", "5");
const cpuSeconds = (since: NodeJS.CpuUsage) => {
  const c = process.cpuUsage(since);
  return (c.user + c.system) / 1e6;
};

const raw = (c: Column) => (c.storage === "numeric" ? c.values : c.codes);
const bits = (a: Float64Array | Int32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

/** Every value's and code's bits, and everything else deeply. */
function identical(a: Frame, b: Frame): boolean {
  if (a.rowCount !== b.rowCount || a.columns.length !== b.columns.length) return false;
  return a.columns.every((c, i) => {
    const d = b.columns[i];
    const {
      values: _v,
      codes: _c,
      spellings: s1,
      ...restA
    } = c as Column & { values?: unknown; codes?: unknown; spellings?: { codes: Int32Array; dictionary: string[] } };
    const {
      values: _w,
      codes: _d,
      spellings: s2,
      ...restB
    } = d as Column & { values?: unknown; codes?: unknown; spellings?: { codes: Int32Array; dictionary: string[] } };
    if (JSON.stringify(restA) !== JSON.stringify(restB) || raw(c).constructor !== raw(d).constructor || !bits(raw(c)).equals(bits(raw(d))))
      return false;
    if (!s1 || !s2) return !s1 && !s2;
    return JSON.stringify(s1.dictionary) === JSON.stringify(s2.dictionary) && bits(s1.codes).equals(bits(s2.codes));
  });
}

for (const file of argv) {
  console.log(`\n${new Date().toISOString()} load ${loadavg()[0].toFixed(2)}: ${file}`);
  const format = file.endsWith(".parquet") ? "parquet" : "csv";
  const { frame, idGenerated } = await readSources(
    [
      {
        filename: file,
        bytes: statSync(file).size,
        open: async () => Readable.toWeb(createReadStream(file, { highWaterMark: 64 * 1024 })) as ReadableStream<Uint8Array>,
      },
    ],
    { format, maxCells: Number.POSITIVE_INFINITY, compressors: nodeCompressors },
  );
  ingestSummary(frame, idGenerated);

  // encode: frameChunks makes the encoded columns' buffers; raw ones are views
  resetPeak();
  const rssBefore = rss();
  let t = performance.now();
  let cpu = process.cpuUsage();
  const { byteLength, chunks } = frameChunks(frame);
  const encode = { wall: (performance.now() - t) / 1000, cpu: cpuSeconds(cpu), peakAdded: (hwm() - rssBefore) / MB };

  const json = new TextDecoder().decode(chunks[0]).slice(12).replace(/\0+$/, "");
  const header = JSON.parse(json) as { columns: { name: string; kind: string; encoding?: Record<string, unknown>; byteLength: number }[] };
  const dataV1 = frame.columns.reduce(
    (s, c) => s + align8(raw(c).byteLength) + (c.storage === "numeric" && c.spellings ? align8(c.spellings.codes.byteLength) : 0),
    0,
  );
  // v1 header length within a few bytes (its offsets and lengths have other digits)
  const headerV1 = JSON.stringify({ ...header, columns: header.columns.map(({ encoding: _, ...h }) => h) }, (k, v) =>
    k === "encoding" ? undefined : v,
  ).length;
  const v1 = align8(12 + headerV1) + dataV1;

  // the bytes as training downloads them: one buffer
  const bytes = new Uint8Array(byteLength);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  if (writeTo) writeFileSync(writeTo, bytes);

  resetPeak();
  const rssBeforeDecode = rss();
  t = performance.now();
  cpu = process.cpuUsage();
  const decoded = decodeFrame(bytes);
  const decode = { wall: (performance.now() - t) / 1000, cpu: cpuSeconds(cpu), peakAdded: (hwm() - rssBeforeDecode) / MB };
  if (!identical(frame, decoded)) throw new Error("the decoded frame differs from the encoded one");

  console.log(`${frame.rowCount} rows, ${frame.columns.length} columns: identical after decoding`);
  console.log(`frame v1 ${(v1 / MB).toFixed(1)} MiB, v2 ${(byteLength / MB).toFixed(1)} MiB (${((100 * byteLength) / v1).toFixed(1)} %)`);
  console.log(
    `encode (frameChunks) ${encode.wall.toFixed(3)} s wall ${encode.cpu.toFixed(3)} s CPU, peak RSS +${encode.peakAdded.toFixed(0)} MiB; ` +
      `decode ${decode.wall.toFixed(3)} s wall ${decode.cpu.toFixed(3)} s CPU, peak RSS +${decode.peakAdded.toFixed(0)} MiB`,
  );
  for (const h of header.columns) {
    const c = frame.columns.find((x) => x.name === h.name) as Column;
    const e = h.encoding;
    const size = e && "bits" in e && e.bits ? `${e.bits} bits` : `u${8 * Number(e && "width" in e ? e.width : 0)}`;
    const how = !e
      ? "raw"
      : e.type === "grid"
        ? `grid ${e.times ? `1/${e.times}` : `×${e.step}`} ${size}`
        : e.type === "shifted"
          ? `codes+1 ${size}`
          : "range";
    console.log(
      `  ${h.name.padEnd(14)} ${h.kind.padEnd(11)} ${how.padEnd(18)} ${(raw(c).byteLength / MB).toFixed(1).padStart(8)} -> ${(h.byteLength / MB).toFixed(1).padStart(8)} MiB`,
    );
  }
}
