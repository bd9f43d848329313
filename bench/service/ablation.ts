/**
 * Where the one-row latency goes, measured on a patched COPY of the service (never the repository's
 * src/): the working tree is copied to a temporary directory, three small patches are applied to
 * the copy, and the copy is started like the real one:
 *
 *  1. src/api/app.ts — a first middleware that puts the time spent inside the Worker's fetch
 *     handler (performance.now() around next(), 1 ms resolution in workerd) into a response
 *     header `x-bench-worker-ms`;
 *  2. src/api/routes/models.ts — passes `skipRecord` when the request has `x-bench-skip-record: 1`;
 *  3. src/models/infer.ts — with `skipRecord`, inferSync does not call `deps.defer(recordJob(…))`
 *     (the infer_sync job written after the response).
 *
 * Then one-row inference with and without the job record, and the baselines, are called in
 * interleaved rounds (so drift and noise hit every cell alike). A patch that no longer applies
 * (src/ changed) skips the ablation with the reason; nothing here edits the repository.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { Client, type Stats, stats, type Timed } from "./client";
import { csvPath, FERTILITY } from "./data";
import { start } from "./service";

export interface AblationCell {
  label: string;
  client: Stats;
  /** Mean time inside the Worker's fetch handler, ms (1 ms clock). */
  workerMean: number | null;
}

export interface Ablation {
  cells: AblationCell[];
  rounds: number;
  perRound: number;
  skipped: string | null;
  leftovers: number[];
}

const COPY = ["src", "scripts", "migrations", "wrangler.toml", "package.json", "tsconfig.json", "worker-configuration.d.ts"]; // .dev.vars: start.ts makes fresh ones

const PATCHES: { file: string; find: string; replace: string }[] = [
  {
    file: "src/api/app.ts",
    find: "  const app = new Hono<AppEnv>();\n",
    replace:
      "  const app = new Hono<AppEnv>();\n" +
      '  app.use("*", async (c, next) => {\n' +
      "    const t = performance.now();\n" +
      "    await next();\n" +
      "    const ms = String(performance.now() - t);\n" +
      '    try { c.res.headers.set("x-bench-worker-ms", ms); } catch { c.res = new Response(c.res.body, c.res); c.res.headers.set("x-bench-worker-ms", ms); }\n' +
      "  });\n",
  },
  {
    file: "src/api/routes/models.ts",
    find: "defer: (p: Promise<unknown>) => c.executionCtx.waitUntil(p) }",
    replace: 'defer: (p: Promise<unknown>) => c.executionCtx.waitUntil(p), skipRecord: c.req.header("x-bench-skip-record") === "1" }',
  },
  {
    file: "src/models/infer.ts",
    find: "  deps.defer(recordJob(",
    replace: "  if (!(deps as { skipRecord?: boolean }).skipRecord) deps.defer(recordJob(",
  },
];

function prepareCopy(): { dir: string } | { error: string } {
  const dir = mkdtempSync(join(tmpdir(), "bench-service-ablation-"));
  for (const p of COPY) if (existsSync(p)) cpSync(p, join(dir, p), { recursive: true });
  symlinkSync(join(process.cwd(), "node_modules"), join(dir, "node_modules"));
  for (const { file, find, replace } of PATCHES) {
    const path = join(dir, file);
    const text = readFileSync(path, "utf8");
    const n = text.split(find).length - 1;
    if (n !== 1) {
      rmSync(dir, { recursive: true, force: true });
      return {
        error: `patch of ${file} does not apply (${n} matches of ${JSON.stringify(find.trim())}); src/ changed since this benchmark was written`,
      };
    }
    writeFileSync(path, text.replace(find, replace));
  }
  return { dir };
}

export async function runAblation(opts: { rounds: number; perRound: number; warmup: number; oneRowCsv: string }): Promise<Ablation> {
  const out: Ablation = { cells: [], rounds: opts.rounds, perRound: opts.perRound, skipped: null, leftovers: [] };
  const prepared = prepareCopy();
  if ("error" in prepared) {
    out.skipped = prepared.error;
    return out;
  }
  const svc = await start(prepared.dir);
  try {
    const c = new Client(svc.base, svc.key);
    let t = performance.now();
    const up = await c.upload("/datasets", readFileSync(csvPath(FERTILITY)), "fertility.csv", { dataset_name: "ablation fertility" });
    if (up.status !== 201) throw new Error(`ablation upload: ${up.status} ${JSON.stringify(up.body)}`);
    await c.untilDone(up.body.job_id, t, { everyMs: 500 });
    t = performance.now();
    const tr = await c.json("/models/train", {
      model_name: "ablation",
      model_type: "prediction",
      dataset_id: up.body.dataset.id,
      label_column: FERTILITY.target,
    });
    const done = await c.untilDone(tr.body.job_id, t, { everyMs: 500 });
    if (done.job.status !== "succeeded") throw new Error(`ablation training ${done.job.status}: ${done.job.error_message}`);
    const id = tr.body.model.id;
    const unknown = crypto.randomUUID();
    const f = { output_type: "json" };
    const cells: { label: string; auth: boolean; fn: () => Promise<Timed> }[] = [
      { label: "infer 1 row (job recorded, unpatched path)", auth: true, fn: () => c.upload(`/models/${id}/infer`, opts.oneRowCsv, "rows.csv", f) },
      {
        label: "infer 1 row, job record skipped (patched)",
        auth: true,
        fn: () => c.upload(`/models/${id}/infer`, opts.oneRowCsv, "rows.csv", f, { "x-bench-skip-record": "1" }),
      },
      {
        label: "POST /models/{unknown}/infer, 1-row file → 404",
        auth: true,
        fn: () => c.upload(`/models/${unknown}/infer`, opts.oneRowCsv, "rows.csv", f),
      },
      { label: "GET /models/x (auth only) → 404", auth: true, fn: () => c.call("/models/x") },
      { label: "GET /health (no auth)", auth: false, fn: () => c.open("/health") },
    ];
    const auths = cells.filter((x) => x.auth).length;
    const ms = cells.map(() => [] as number[]);
    const worker = cells.map(() => [] as number[]);
    await c.reserve(auths * opts.warmup);
    for (const cell of cells) for (let i = 0; i < opts.warmup; i++) await cell.fn();
    for (let r = 0; r < opts.rounds; r++) {
      await c.reserve(auths * opts.perRound);
      for (let k = 0; k < cells.length; k++) {
        for (let i = 0; i < opts.perRound; i++) {
          const res = await cells[k].fn();
          if (![200, 404].includes(res.status))
            throw new Error(`ablation ${cells[k].label}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
          ms[k].push(res.ms);
          const w = Number(res.headers.get("x-bench-worker-ms"));
          if (res.headers.has("x-bench-worker-ms") && Number.isFinite(w)) worker[k].push(w);
        }
      }
    }
    out.cells = cells.map((cell, k) => ({
      label: cell.label,
      client: stats(ms[k]),
      workerMean: worker[k].length ? worker[k].reduce((a, b) => a + b, 0) / worker[k].length : null,
    }));
    for (const x of out.cells)
      console.log(
        `  ${x.label}: client p50 ${x.client.p50.toFixed(2)} mean ${x.client.mean.toFixed(2)} ms; in handler mean ${x.workerMean?.toFixed(2)} ms`,
      );
  } finally {
    out.leftovers = await svc.shutdown();
    rmSync(prepared.dir, { recursive: true, force: true });
  }
  return out;
}
