/**
 * Large-CSV ingestion in plain Node (issue 13): readCsv on a file streamed from disk in 64 KB
 * chunks (like an R2 body), then the dataset profile (ingestSummary's profileFrame), each
 * variant in a child process of its own so that peak RSS (the OS high-water mark) is its own.
 *
 * Variants, in the same run: `before` = readCsv and profileFrame of another source tree (--before
 * DIR: e.g. `git archive <commit> src | tar -x -C DIR`, with DIR/node_modules a link to this
 * repository's), `dictionary` = every column dictionary-encoded to the end (readCsvAllDictionary:
 * this tree without typed numeric columns), `typed` = readCsv.
 *
 * Run: node_modules/node/bin/node --import tsx bench/ingest-large.ts [--before DIR] [--variants before,dictionary,typed] [--rounds N] FILE...
 * With --rounds N the variants run N times each, interleaved (the machine's load varies). Each
 * child also prints a checksum of the frame (names, kinds, every value and code, dictionaries),
 * computed after the measurements: the variants must read the same frame.
 * Children get --expose-gc and --max-old-space-size=6144 (the trainer container's setting).
 * Peak heap = heapUsed + arrayBuffers (typed arrays live outside the JS heap), sampled on every
 * chunk read, after the read and after the profile; peak RSS = process.resourceUsage().maxRSS. Read CPU s =
 * the process's user + system CPU time during the read (all its threads, GC helpers included):
 * less sensitive than wall time to other work on a shared machine.
 */
import { execFileSync } from "node:child_process";
import { createReadStream, statSync } from "node:fs";
import { loadavg } from "node:os";
import { Readable } from "node:stream";
import { trainerMaxFrameCells } from "../src/core/limits";
import { readCsv, readCsvAllDictionary } from "../src/ingest/csv";
import type { IngestResult, ReadCsvOptions } from "../src/ingest/types";
import type { Frame } from "../src/ml/frame";
import { profileFrame } from "../src/ml/profile";

/** What a trainer of the 6 GiB instance (standard-2, the default) reads at most. */
const TRAINER_CELLS = trainerMaxFrameCells(6 * 1024 ** 3);

const MB = 1024 * 1024;
const argv = process.argv.slice(2);

if (argv[0] === "--child") await child(argv[1], argv[2], argv[3]);
else parent();

function option(name: string): string | undefined {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
}

function parent(): void {
  const before = option("--before");
  const variants = option("--variants")?.split(",") ?? [...(before ? ["before"] : []), "dictionary", "typed"];
  const rounds = Number(option("--rounds") ?? 1);
  const files = argv.filter((a, i) => !a.startsWith("--") && !argv[i - 1]?.startsWith("--"));
  const node = process.execPath;
  const notes: string[] = [];
  console.log(
    `| file | MB | reader | rows | read s | MB/s | read CPU s | peak RSS MB | peak heap+AB MB | profile s | RSS after profile MB | load avg |`,
  );
  console.log(`|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|`);
  for (const file of files) {
    for (let round = 0; round < rounds; round++)
      for (const variant of variants) {
        const load = loadavg()[0].toFixed(1);
        let line: string;
        try {
          const out = execFileSync(
            node,
            [
              "--expose-gc",
              "--max-old-space-size=6144",
              "--import",
              "tsx",
              new URL(import.meta.url).pathname,
              "--child",
              variant,
              file,
              before ?? "",
            ],
            { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 1 << 20 },
          );
          const r = JSON.parse(out.trim().split("\n").pop()!);
          notes.push(`${variant} ${file.split("/").pop()}: checksum ${r.checksum}; ${r.kinds}`);
          line = `| ${file.split("/").pop()} | ${r.mb.toFixed(0)} | ${variant} | ${r.rows} | ${r.readS.toFixed(2)} | ${(r.mb / r.readS).toFixed(1)} | ${r.readCpuS.toFixed(2)} | ${r.peakRssMB.toFixed(0)} | ${r.peakHeapMB.toFixed(0)} | ${r.profileS.toFixed(2)} | ${r.rssEndMB.toFixed(0)} | ${load} |`;
        } catch (e) {
          notes.push(`${variant} ${file.split("/").pop()} failed: ${String((e as { stderr?: string }).stderr ?? e).slice(-2000)}`);
          line = `| ${file.split("/").pop()} | | ${variant} | failed: ${String((e as Error).message)
            .split("\n")[0]
            .slice(0, 120)} | | | | | | | | ${load} |`;
        }
        console.log(line);
      }
  }
  console.log(`\nColumns (name:kind/storage):\n${notes.join("\n")}`);
}

type Reader = (input: ReadableStream<Uint8Array>, options: ReadCsvOptions) => Promise<IngestResult>;

async function child(variant: string, file: string, beforeDir: string): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  let peakHeap = 0;
  const sample = () => {
    const m = process.memoryUsage();
    peakHeap = Math.max(peakHeap, m.heapUsed + m.arrayBuffers);
  };
  const mb = statSync(file).size / MB;
  const nodeStream = createReadStream(file, { highWaterMark: 64 * 1024 });
  nodeStream.on("data", sample);
  const stream = Readable.toWeb(nodeStream) as unknown as ReadableStream<Uint8Array>;
  let read: Reader | undefined = variant === "dictionary" ? readCsvAllDictionary : variant === "typed" ? readCsv : undefined;
  let profile: (frame: Frame) => unknown[] = profileFrame;
  if (variant === "before") {
    read = (await import(`${beforeDir}/src/ingest/csv.ts`)).readCsv as Reader;
    profile = (await import(`${beforeDir}/src/ml/profile.ts`)).profileFrame;
  }
  if (!read) throw new Error(`unknown variant ${variant}`);
  gc?.();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  // fileBytes as the trainer's readSources passes it (a tree from before the option ignores it).
  const { frame } = await read(stream, { maxCells: TRAINER_CELLS, fileBytes: statSync(file).size });
  const readS = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const readCpuS = (cpu.user + cpu.system) / 1e6;
  sample();
  const t1 = performance.now();
  const profiled = profile(frame);
  const profileS = (performance.now() - t1) / 1000;
  sample();
  const kinds = frame.columns.map((c) => `${c.name}:${c.kind}/${c.storage}`).join(" ");
  if (profiled.length !== frame.columns.length) throw new Error("profile: wrong column count");
  const peakRssMB = process.resourceUsage().maxRSS / 1024;
  const rssEndMB = process.memoryUsage().rss / MB;
  const checksum = frameChecksum(frame);
  console.log(
    JSON.stringify({
      kinds,
      mb,
      rows: frame.rowCount,
      readS,
      readCpuS,
      profileS,
      peakRssMB,
      peakHeapMB: peakHeap / MB,
      rssEndMB,
      checksum,
    }),
  );
}

/** FNV-1a over the frame's names, kinds, storage, values (bits), codes and dictionaries. */
function frameChecksum(frame: Frame): string {
  let h = 0x811c9dc5;
  const word = (x: number) => {
    h = Math.imul(h ^ x, 0x01000193);
  };
  const text = (t: string) => {
    for (let i = 0; i < t.length; i++) word(t.charCodeAt(i));
    word(0);
  };
  for (const c of frame.columns) {
    text(`${c.name}:${c.kind}:${c.storage}`);
    if (c.storage === "numeric") {
      const bits = new Int32Array(c.values.buffer, c.values.byteOffset, c.values.length * 2);
      for (let i = 0; i < bits.length; i++) word(bits[i]);
    } else {
      for (let i = 0; i < c.codes.length; i++) word(c.codes[i]);
      for (const d of c.dictionary) text(d);
    }
  }
  return (h >>> 0).toString(16).padStart(8, "0");
}
