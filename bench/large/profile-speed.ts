/**
 * The ingest summary's speed (issue 13): after the trainer reads a large table, `ingestSummary`
 * computes the dataset profile (profileFrame) with the event loop blocked. One frame is read as
 * the trainer reads it (readSources, the file streamed from disk in 64 KB chunks), then the
 * summary of another source tree (--before DIR: `git archive <commit> src | tar -x -C DIR`, with
 * DIR/node_modules a link to this repository's) and of this one run on it in alternating rounds,
 * wall and CPU seconds (user + system: less sensitive to other work on a shared machine). The two
 * summaries must be identical (util.isDeepStrictEqual: Object.is on numbers, so −0 ≠ 0). Then
 * this tree's profile column by column.
 *
 * Run: node_modules/node/bin/node --max-old-space-size=6144 --import tsx bench/large/profile-speed.ts --before DIR [--rounds N] FILE
 * (FILE: .csv or .parquet, e.g. /tmp/bench-large/mixed2_10000000_s13.csv from bench/large/run.ts)
 */
import { createReadStream, statSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pathToFileURL } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { ingestSummary } from "../../src/datasets/ingest-job";
import { nodeCompressors } from "../../src/ingest/node-compressors";
import { readSources } from "../../src/ingest/read-sources";
import { profileColumn } from "../../src/ml/profile";

const argv = process.argv.slice(2);
const option = (name: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const beforeDir = option("--before");
const rounds = Number(option("--rounds") ?? 4);
const file = argv[argv.length - 1];
if (!beforeDir || !file) throw new Error("usage: profile-speed.ts --before DIR [--rounds N] FILE");
const before = ((await import(pathToFileURL(join(beforeDir, "src/datasets/ingest-job.ts")).href)) as typeof import("../../src/datasets/ingest-job"))
  .ingestSummary;

const load = () => loadavg()[0].toFixed(2);
console.log(`${new Date().toISOString()} load ${load()}: reading ${file}`);
const t0 = performance.now();
const { frame, idGenerated } = await readSources(
  [
    {
      filename: file,
      bytes: statSync(file).size,
      open: async () => Readable.toWeb(createReadStream(file, { highWaterMark: 64 * 1024 })) as ReadableStream<Uint8Array>,
    },
  ],
  { format: file.endsWith(".parquet") ? "parquet" : "csv", maxCells: Number.POSITIVE_INFINITY, compressors: nodeCompressors },
);
console.log(`read ${((performance.now() - t0) / 1000).toFixed(1)} s: ${frame.rowCount} rows × ${frame.columns.length} columns`);

/** Wall and CPU seconds of one call. */
function timed<T>(f: () => T): { value: T; wall: number; cpu: number } {
  const c0 = process.cpuUsage();
  const w0 = performance.now();
  const value = f();
  const c = process.cpuUsage(c0);
  return { value, wall: (performance.now() - w0) / 1000, cpu: (c.user + c.system) / 1e6 };
}

const variants = { before, after: ingestSummary };
const seconds: Record<string, { wall: number[]; cpu: number[] }> = { before: { wall: [], cpu: [] }, after: { wall: [], cpu: [] } };
const last: Record<string, unknown> = {};
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? (["before", "after"] as const) : (["after", "before"] as const);
  for (const name of order) {
    const { value, wall, cpu } = timed(() => variants[name](frame, idGenerated));
    seconds[name].wall.push(wall);
    seconds[name].cpu.push(cpu);
    last[name] = value;
    console.log(`round ${r} ${name.padEnd(6)} wall ${wall.toFixed(3)} s, cpu ${cpu.toFixed(3)} s (load ${load()})`);
  }
}
const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const range = (a: number[]) => `${Math.min(...a).toFixed(2)}–${Math.max(...a).toFixed(2)}`;
for (const name of ["before", "after"]) {
  const s = seconds[name];
  console.log(`${name}: wall median ${median(s.wall).toFixed(2)} s (${range(s.wall)}), cpu median ${median(s.cpu).toFixed(2)} s (${range(s.cpu)})`);
}
console.log(`identical summaries: ${isDeepStrictEqual(last.before, last.after)}`);

console.log("after, column by column (wall s / cpu s):");
for (const column of frame.columns) {
  const { wall, cpu } = timed(() => profileColumn(column));
  console.log(`  ${column.name.padEnd(12)} ${`${column.kind}/${column.storage}`.padEnd(24)} ${wall.toFixed(3)} / ${cpu.toFixed(3)}`);
}
