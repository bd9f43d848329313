/**
 * Large-Parquet ingestion in plain Node (issue 13): readParquet against DuckDB's read_parquet
 * (one thread, into an in-memory table) on the same file, in the same run, each in a child
 * process of its own so that its peak RSS (the OS high-water mark) is its own.
 *
 * readParquet's time includes reading the file from disk into one buffer (as the trainer does
 * with an upload), since DuckDB's includes its own reads; the file is read once beforehand so
 * that both find it in the page cache. Ratio = readParquet / DuckDB. Passes are interleaved
 * (DuckDB, reader, DuckDB, reader...) and the fastest of each kept: on this shared machine
 * absolute times drift.
 *
 * Run: node_modules/node/bin/node --import tsx bench/ingest-parquet-large.ts [--passes 2] FILE...
 * Children get --expose-gc and --max-old-space-size=6144 (the trainer container's setting).
 */
import { execFileSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { DuckDBInstance } from "@duckdb/node-api";
import { TRAINER_MAX_FRAME_CELLS } from "../src/core/limits";
import { nodeCompressors } from "../src/ingest/node-compressors";
import { readParquet } from "../src/ingest/parquet";

const MB = 1e6;
const argv = process.argv.slice(2);

interface Run {
  s: number;
  rows: number;
  peakRssMB: number;
  kinds?: string;
}

if (argv[0] === "--child") await child(argv[1], argv[2]);
else parent();

function parent(): void {
  const at = argv.indexOf("--passes");
  const passes = at >= 0 ? Number(argv[at + 1]) : 2;
  const files = argv.filter((a, i) => !a.startsWith("--") && (at < 0 || i !== at + 1));
  const notes: string[] = [];
  console.log("| file | MB | rows | DuckDB 1 thread s | DuckDB peak RSS MB | readParquet s | MB/s | peak RSS MB | ratio |");
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const file of files) {
    const name = file.split("/").pop();
    const mb = statSync(file).size / MB;
    readFileSync(file); // warm the page cache for both sides
    const best: Record<string, Run | undefined> = {};
    const failed: Record<string, string> = {};
    for (let p = 0; p < passes; p++) {
      for (const variant of ["duckdb", "reader"]) {
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
    const r = best.reader;
    const cell = (x: Run | undefined, f: (x: Run) => string, v: string) => (x ? f(x) : `failed: ${failed[v]}`);
    console.log(
      `| ${name} | ${mb.toFixed(0)} | ${r?.rows ?? d?.rows ?? ""} | ${cell(d, (x) => x.s.toFixed(2), "duckdb")} | ${d ? d.peakRssMB.toFixed(0) : ""} | ${cell(r, (x) => x.s.toFixed(2), "reader")} | ${r ? (mb / r.s).toFixed(1) : ""} | ${r ? r.peakRssMB.toFixed(0) : ""} | ${r && d ? `${(r.s / d.s).toFixed(2)}×` : ""} |`,
    );
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
  if (variant === "duckdb") {
    const db = await DuckDBInstance.create(":memory:", { threads: "1" });
    const con = await db.connect();
    const t = performance.now();
    await con.run(`CREATE TABLE t AS SELECT * FROM read_parquet('${file}')`);
    const s = (performance.now() - t) / 1000;
    const rows = Number((await con.runAndReadAll("SELECT count(*) FROM t")).getRows()[0][0]);
    run = { s, rows };
  } else {
    (globalThis as { gc?: () => void }).gc?.();
    const t = performance.now();
    const bytes = readFileSync(file);
    const { frame } = await readParquet(bytes, { maxCells: TRAINER_MAX_FRAME_CELLS, compressors: nodeCompressors });
    const s = (performance.now() - t) / 1000;
    run = { s, rows: frame.rowCount, kinds: frame.columns.map((c) => `${c.name}:${c.kind}/${c.storage}`).join(" ") };
  }
  console.log(JSON.stringify({ ...run, peakRssMB: (process.resourceUsage().maxRSS * 1024) / MB }));
}
