/**
 * Large-Parquet ingestion in plain Node (issue 13): the readers against DuckDB's read_parquet
 * (one thread, into an in-memory table) on the same file, in the same run, each in a child
 * process of its own so that its peak RSS (the OS high-water mark) is its own. Two readers:
 * "whole", readParquet on the file read from disk into one buffer (the Worker's way, and the
 * trainer's before it read by range); "stream", readSources with a ranged source as the trainer
 * now reads an upload: the footer by two range reads, then the file streamed from disk in 64 KiB
 * pieces (async reads) and decoded row group by row group as it arrives. And the same two over
 * HTTP, as the trainer reads an upload from R2 (its ControlClient, a presigned URL): the file
 * served by a process of its own (`--serve`, Range requests answered 206), "http-whole"
 * downloading it and then decoding it (the trainer before), "http-stream" decoding as it arrives.
 *
 * Times include reading the file, since DuckDB's include its own reads; the file is read once
 * beforehand so that all find it in the page cache. Ratio = reader / DuckDB. Passes are
 * interleaved (DuckDB, whole, stream, DuckDB...) and the fastest of each kept (its CPU seconds
 * beside it; peak RSS the highest of the passes): on this shared machine absolute times drift.
 *
 * Run: node_modules/node/bin/node --import tsx bench/ingest-parquet-large.ts [--passes 2] [--variants duckdb,whole] FILE...
 * (--variants: a subset of the readers, comma-separated: duckdb, whole, stream, http-whole, http-stream.)
 * Children get --expose-gc and --max-old-space-size=6144 (the trainer container's setting).
 */
import { execFileSync, spawn } from "node:child_process";
import { createReadStream, readFileSync, statSync } from "node:fs";
import { open } from "node:fs/promises";
import { createServer } from "node:http";
import { DuckDBInstance } from "@duckdb/node-api";
import { ControlClient } from "../src/container/control-client";
import { trainerMaxFrameCells } from "../src/core/limits";
import { nodeCompressors } from "../src/ingest/node-compressors";
import { readParquet } from "../src/ingest/parquet";
import { readSources, type SourceFile } from "../src/ingest/read-sources";

/** What a trainer of the 6 GiB instance (standard-2, the default) reads at most. */
const TRAINER_CELLS = trainerMaxFrameCells(6 * 1024 ** 3);

const MB = 1e6;
const VARIANTS = ["duckdb", "whole", "stream", "http-whole", "http-stream"];
const LABELS: Record<string, string> = {
  duckdb: "DuckDB 1 thread",
  whole: "readParquet, whole file from disk",
  stream: "readSources, streamed from disk by row group",
  "http-whole": "trainer over HTTP, downloaded then decoded (before)",
  "http-stream": "trainer over HTTP, footer by range, decoded as it arrives",
};
const PIECE = 64 * 1024;
const argv = process.argv.slice(2);

interface Run {
  s: number;
  cpu?: number;
  rows: number;
  peakRssMB: number;
  kinds?: string;
}

if (argv[0] === "--child") await child(argv[1], argv[2]);
else if (argv[0] === "--serve") serve(argv[1]);
else parent();

function parent(): void {
  const option = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const passes = Number(option("--passes") ?? 2);
  const variants = option("--variants")?.split(",") ?? VARIANTS;
  const files = argv.filter((a, i) => !a.startsWith("--") && !argv[i - 1]?.startsWith("--"));
  const notes: string[] = [];
  console.log("| file | MB | rows | reader | s | CPU s | MB/s | peak RSS MB | ratio to DuckDB |");
  console.log("|---|---:|---:|---|---:|---:|---:|---:|---:|");
  for (const file of files) {
    const name = file.split("/").pop();
    const mb = statSync(file).size / MB;
    readFileSync(file); // warm the page cache for both sides
    const best: Record<string, Run | undefined> = {};
    const failed: Record<string, string> = {};
    for (let p = 0; p < passes; p++) {
      for (const variant of variants) {
        if (failed[variant]) continue;
        try {
          const r = runChild(variant, file);
          if (!best[variant] || r.s < best[variant].s) best[variant] = { ...r, peakRssMB: Math.max(r.peakRssMB, best[variant]?.peakRssMB ?? 0) };
          if (r.kinds) notes.push(`${name}: ${r.kinds}`);
        } catch (e) {
          const err = String((e as { stderr?: string }).stderr || e);
          failed[variant] = err.split("\n").find((l) => /Error|heap/i.test(l)) ?? err.slice(0, 200);
        }
      }
    }
    const d = best.duckdb;
    for (const v of variants) {
      const r = best[v];
      const label = LABELS[v];
      if (!r) {
        console.log(`| ${name} | ${mb.toFixed(0)} | | ${label} | failed: ${failed[v]} | | | | |`);
        continue;
      }
      const ratio = d && v !== "duckdb" ? `${(r.s / d.s).toFixed(2)}×` : "";
      console.log(
        `| ${name} | ${mb.toFixed(0)} | ${r.rows} | ${label} | ${r.s.toFixed(2)} | ${r.cpu?.toFixed(2) ?? ""} | ${(mb / r.s).toFixed(1)} | ${r.peakRssMB.toFixed(0)} | ${ratio} |`,
      );
    }
  }
  console.log(`\nColumns (name:kind/storage):\n${[...new Set(notes)].join("\n")}`);
}

function runChild(variant: string, file: string): Run {
  const out = execFileSync(
    process.execPath,
    ["--expose-gc", "--max-old-space-size=6144", "--import", "tsx", new URL(import.meta.url).pathname, "--child", variant, file],
    { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 1 << 20 },
  );
  return JSON.parse(out.trim().split("\n").pop()!);
}

async function child(variant: string, file: string): Promise<void> {
  let run: Omit<Run, "peakRssMB">;
  const cpu0 = process.cpuUsage();
  const cpu = () => {
    const u = process.cpuUsage(cpu0);
    return (u.user + u.system) / 1e6;
  };
  if (variant === "duckdb") {
    const db = await DuckDBInstance.create(":memory:", { threads: "1" });
    const con = await db.connect();
    const t = performance.now();
    await con.run(`CREATE TABLE t AS SELECT * FROM read_parquet('${file}')`);
    const s = (performance.now() - t) / 1000;
    const rows = Number((await con.runAndReadAll("SELECT count(*) FROM t")).getRows()[0][0]);
    run = { s, cpu: cpu(), rows };
  } else if (variant === "whole") {
    (globalThis as { gc?: () => void }).gc?.();
    const t = performance.now();
    const bytes = readFileSync(file);
    const { frame } = await readParquet(bytes, { maxCells: TRAINER_CELLS, compressors: nodeCompressors });
    const s = (performance.now() - t) / 1000;
    run = { s, cpu: cpu(), rows: frame.rowCount, kinds: frame.columns.map((c) => `${c.name}:${c.kind}/${c.storage}`).join(" ") };
  } else if (variant.startsWith("http-")) {
    const server = spawn(process.execPath, ["--import", "tsx", new URL(import.meta.url).pathname, "--serve", file], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const url = await new Promise<string>((resolve) => server.stdout.once("data", (d) => resolve(String(d).trim())));
    try {
      (globalThis as { gc?: () => void }).gc?.();
      const t = performance.now();
      const client = new ControlClient({ baseUrl: "http://unused.invalid" }, "bench", 1);
      const f: SourceFile = { filename: file, bytes: statSync(file).size, open: () => client.openSource(0, url) };
      if (variant === "http-stream") f.openRange = (a, b) => client.readSourceRange(0, a, b, url);
      const { frame } = await readSources([f], { format: "parquet", maxCells: TRAINER_CELLS, compressors: nodeCompressors });
      run = { s: (performance.now() - t) / 1000, cpu: cpu(), rows: frame.rowCount };
    } finally {
      server.kill();
    }
  } else {
    (globalThis as { gc?: () => void }).gc?.();
    const t = performance.now();
    const bytes = statSync(file).size;
    const { frame } = await readSources([{ filename: file, bytes, open: async () => fileStream(file), openRange: (a, b) => fileRange(file, a, b) }], {
      format: "parquet",
      maxCells: TRAINER_CELLS,
      compressors: nodeCompressors,
    });
    const s = (performance.now() - t) / 1000;
    run = { s, cpu: cpu(), rows: frame.rowCount };
  }
  console.log(JSON.stringify({ ...run, peakRssMB: (process.resourceUsage().maxRSS * 1024) / MB }));
}

/** The file from disk in PIECE-byte reads, each a fresh buffer (as a network body's chunks are). */
async function fileStream(file: string): Promise<ReadableStream<Uint8Array>> {
  const handle = await open(file);
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const piece = new Uint8Array(PIECE);
      const { bytesRead } = await handle.read(piece, 0, PIECE, null);
      if (bytesRead === 0) {
        await handle.close();
        controller.close();
      } else controller.enqueue(piece.subarray(0, bytesRead));
    },
    async cancel() {
      await handle.close();
    },
  });
}

async function fileRange(file: string, start: number, end: number): Promise<Uint8Array> {
  const handle = await open(file);
  try {
    const out = new Uint8Array(end - start);
    const { bytesRead } = await handle.read(out, 0, out.length, start);
    return out.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Serves `file` on a free port (printed), whole or by `Range: bytes=first-last`, as R2 does. */
function serve(file: string): void {
  const size = statSync(file).size;
  const server = createServer((req, res) => {
    const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? "");
    if (!range) {
      res.writeHead(200, { "Content-Length": String(size) });
      createReadStream(file).pipe(res);
      return;
    }
    const [first, last] = [Number(range[1]), Math.min(Number(range[2]), size - 1)];
    res.writeHead(206, { "Content-Length": String(last - first + 1), "Content-Range": `bytes ${first}-${last}/${size}` });
    createReadStream(file, { start: first, end: last }).pipe(res);
  });
  server.listen(0, "127.0.0.1", () => console.log(`http://127.0.0.1:${(server.address() as { port: number }).port}/file`));
}
