/**
 * Ingestion benchmark: readCsv (and, for before/after in one run, readCsvWithPapaparse: the same
 * reader with the papaparse tokenizer it had before) and readParquet on the fertility table
 * (254,654 rows), plus the encoded frame size and the profile. Run: npx tsx bench/ingest.ts [--expose-gc for steadier heap
 * numbers: node --expose-gc --import tsx bench/ingest.ts]
 *
 * Also readCsvAllDictionary (this reader without typed numeric columns) and, with `--before DIR`,
 * readCsv and profileFrame of another source tree (e.g. `git archive <commit> src | tar -x -C DIR`
 * with DIR/node_modules a link to this repository's): before/after in one run.
 *
 * Peak memory (JS heap + ArrayBuffers) is sampled on every chunk the CSV stream hands out and on
 * every Parquet page decompressed, so it sees the builders grow.
 */
import { readFileSync, statSync } from "node:fs";
import { decodeFrame, encodeFrame } from "../src/ingest/codec";
import { readCsv, readCsvAllDictionary, readCsvWithPapaparse } from "../src/ingest/csv";
import { nodeCompressors } from "../src/ingest/node-compressors";
import { readParquet } from "../src/ingest/parquet";
import type { IngestResult } from "../src/ingest/types";
import type { Frame } from "../src/ml/frame";
import { profileFrame } from "../src/ml/profile";

const DIR = "/work/shared/bench-data";
const MB = 1024 * 1024;
const gc = (globalThis as { gc?: () => void }).gc;

// heapUsed misses typed arrays (their storage is external), so the sampled figure is
// heapUsed + arrayBuffers; arrayBuffers includes the input file's own bytes.
const used = () => {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
let peakHeap = 0;
const sample = () => (peakHeap = Math.max(peakHeap, used()));

/** The file as a web stream of 64 KB chunks, like an R2 object body, sampling the heap. */
function streamFile(bytes: Uint8Array, chunk = 64 * 1024): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(c) {
      sample();
      if (at >= bytes.length) return c.close();
      c.enqueue(bytes.subarray(at, at + chunk));
      at += chunk;
    },
  });
}

async function measure<T>(label: string, passes: number, run: () => Promise<T>): Promise<{ result: T; ms: number; peakMB: number; baseMB: number }> {
  let best = Infinity;
  let result!: T;
  let peak = 0;
  let base = 0;
  for (let i = 0; i < passes; i++) {
    gc?.();
    base = used();
    peakHeap = base;
    const t = performance.now();
    result = await run();
    best = Math.min(best, performance.now() - t);
    sample();
    peak = Math.max(peak, peakHeap);
  }
  console.log(`${label}: best of ${passes} ${best.toFixed(0)} ms`);
  return { result, ms: best, peakMB: peak / MB, baseMB: base / MB };
}

const csvPath = `${DIR}/fertility.csv`;
const csvBytes = new Uint8Array(readFileSync(csvPath));
const csvMB = statSync(csvPath).size / MB;

// The papaparse tokenizer readCsv used before the hand-written one (kept as the test reference):
// the before/after comparison in one run.
const papa = await measure("readCsvWithPapaparse fertility.csv (stream, 64 KB chunks; the old tokenizer)", 5, () =>
  readCsvWithPapaparse(streamFile(csvBytes)),
);
console.log(
  `  ${(csvMB / (papa.ms / 1000)).toFixed(1)} MB/s; heap+ArrayBuffers: ${papa.baseMB.toFixed(1)} MB before, peak ${papa.peakMB.toFixed(1)} MB (+${(papa.peakMB - papa.baseMB).toFixed(1)} MB)`,
);

const beforeAt = process.argv.indexOf("--before");
const beforeDir = beforeAt >= 0 ? process.argv[beforeAt + 1] : undefined;
type Reader = (input: ReadableStream<Uint8Array>) => Promise<IngestResult>;
const before = beforeDir
  ? {
      readCsv: (await import(`${beforeDir}/src/ingest/csv.ts`)).readCsv as Reader,
      profileFrame: (await import(`${beforeDir}/src/ml/profile.ts`)).profileFrame as (frame: Frame) => unknown[],
    }
  : undefined;
if (before) {
  const old = await measure(`readCsv of ${beforeDir} (stream, 64 KB chunks; before)`, 5, () => before.readCsv(streamFile(csvBytes)));
  console.log(
    `  ${(csvMB / (old.ms / 1000)).toFixed(1)} MB/s; heap+ArrayBuffers: ${old.baseMB.toFixed(1)} MB before, peak ${old.peakMB.toFixed(1)} MB (+${(old.peakMB - old.baseMB).toFixed(1)} MB)`,
  );
}
const dict = await measure("readCsvAllDictionary fertility.csv (stream, 64 KB chunks; no typed numeric columns)", 5, () =>
  readCsvAllDictionary(streamFile(csvBytes)),
);
console.log(
  `  ${(csvMB / (dict.ms / 1000)).toFixed(1)} MB/s; heap+ArrayBuffers: ${dict.baseMB.toFixed(1)} MB before, peak ${dict.peakMB.toFixed(1)} MB (+${(dict.peakMB - dict.baseMB).toFixed(1)} MB)`,
);

const csv = await measure("readCsv fertility.csv (stream, 64 KB chunks)", 5, () => readCsv(streamFile(csvBytes)));
const rows = csv.result.frame.rowCount;
console.log(
  `  ${rows} rows, ${csv.result.frame.columns.length} columns, ${csvMB.toFixed(2)} MB -> ${(rows / (csv.ms / 1000) / 1e6).toFixed(2)} M rows/s, ${(csvMB / (csv.ms / 1000)).toFixed(1)} MB/s`,
);
console.log(
  `  heap+ArrayBuffers: ${csv.baseMB.toFixed(1)} MB before, peak ${csv.peakMB.toFixed(1)} MB (+${(csv.peakMB - csv.baseMB).toFixed(1)} MB)`,
);

const oneShot = await measure("readCsv fertility.csv (one Uint8Array)", 5, () => readCsv(csvBytes));
console.log(`  ${(rows / (oneShot.ms / 1000) / 1e6).toFixed(2)} M rows/s, ${(csvMB / (oneShot.ms / 1000)).toFixed(1)} MB/s`);

const frame = csv.result.frame;
const enc = await measure("encodeFrame", 5, async () => encodeFrame(frame));
console.log(`  encoded frame: ${(enc.result.length / MB).toFixed(2)} MB (${enc.result.length} bytes; source CSV ${csvMB.toFixed(2)} MB)`);
await measure("decodeFrame (zero-copy)", 5, async () => decodeFrame(enc.result));
if (before) await measure(`profileFrame of ${beforeDir} (before)`, 5, async () => before.profileFrame(frame));
const prof = await measure("profileFrame", 5, async () => profileFrame(frame));
console.log(`  ${prof.result.length} column profiles, ${JSON.stringify(prof.result).length} bytes of JSON`);

const pqPath = `${DIR}/fertility.parquet`;
const pqBytes = new Uint8Array(readFileSync(pqPath));
const sampling = Object.fromEntries(
  Object.entries(nodeCompressors).map(([codec, f]) => [codec, (input: Uint8Array, n: number) => (sample(), f!(input, n))]),
);
const pq = await measure("readParquet fertility.parquet (ZSTD via node:zlib)", 5, () => readParquet(pqBytes, { compressors: sampling }));
const pqMB = pqBytes.length / MB;
console.log(
  `  ${pq.result.frame.rowCount} rows, ${pqMB.toFixed(2)} MB -> ${(pq.result.frame.rowCount / (pq.ms / 1000) / 1e6).toFixed(2)} M rows/s; memory peak ${pq.peakMB.toFixed(1)} MB (+${(pq.peakMB - pq.baseMB).toFixed(1)} MB)`,
);
console.log(`rss at end: ${(process.memoryUsage().rss / MB).toFixed(0)} MB; gc exposed: ${gc ? "yes" : "no"}`);
