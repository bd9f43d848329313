/**
 * A second prediction model on a large table through the service, as a user makes it (issue 30's
 * end-to-end goal): `npm start` (test/e2e/service.ts, npm start's own trainer count unless
 * --trainers), the CSV uploaded by signed URL, a first model (it builds the dataset's shared
 * representation), then each second model timed from its POST to the poll that saw it succeed,
 * with the job's `seconds` and the trainer's stage lines. Beside it, in the same run, XGBoost
 * `hist` with nthread = all cores on the same CSV and label (./second-model-reference.py).
 *
 * npx tsx bench/service/second-model-large.ts [--csv /tmp/bench-large/mixed2_2000000_s13.csv]
 *   [--first '{"search":"off"}'] [--second '{}' --second '{"search":"off"}' …] [--trainers N]
 *   [--trainer-threads N] [--no-ref]
 * Prints one JSON line per model and the reference's JSON; the .md is written by hand from them.
 */
import { execFileSync } from "node:child_process";
import { openAsBlob, readFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { TabularClient } from "tabular-ml-sdk";
import { startService } from "../../test/e2e/service";
import { Client, TERMINAL } from "./client";

const argv = process.argv.slice(2);
const arg = (name: string, dflt: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : dflt);
const all = (name: string) => argv.flatMap((a, i) => (a === name ? [argv[i + 1]] : []));
const CSV = arg("--csv", "/tmp/bench-large/mixed2_2000000_s13.csv");
const LABEL = arg("--label", "label");
const FIRST = JSON.parse(arg("--first", '{"search":"off"}'));
const SECONDS = (all("--second").length ? all("--second") : ["{}"]).map((s) => JSON.parse(s));
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(" / ");

const env: Record<string, string> = { TRAINERS: arg("--trainers", String(availableParallelism())) };
if (argv.includes("--trainer-threads")) env.TRAINER_THREADS = arg("--trainer-threads", "");
console.log(`[bench] ${new Date().toISOString()} load ${load()}; service env ${JSON.stringify(env)}`);
const svc = await startService(180_000, env);
/** CPU seconds (user + system, all threads) of the trainer processes so far. */
const trainerCpuS = () =>
  [...svc.output().matchAll(/\[start\] trainer process started \(pid (\d+)\)/g)].reduce((sum, m) => {
    try {
      const f = readFileSync(`/proc/${m[1]}/stat`, "utf8").split(") ")[1].split(" ");
      return sum + (Number(f[11]) + Number(f[12])) / 100;
    } catch {
      return sum;
    }
  }, 0);
try {
  const c = new Client(svc.base, svc.key);
  const sdk = new TabularClient({ baseUrl: svc.base, apiKey: svc.key });

  const until = async (jobId: string, since: number) => {
    for (;;) {
      const r = await c.call(`/jobs/${jobId}`);
      if (TERMINAL.has(r.body.status)) return { job: r.body, wallS: (performance.now() - since) / 1000 };
      await new Promise((res) => setTimeout(res, 200));
    }
  };

  let t = performance.now();
  const up = await sdk.upload(new File([await openAsBlob(CSV)], CSV.split("/").at(-1)!), { name: "large", signed: true });
  const ingest = await until(up.jobId, t);
  console.log(`[bench] ingest: ${ingest.job.status} wall ${ingest.wallS.toFixed(1)} s, output ${JSON.stringify(ingest.job.output).slice(0, 300)}`);

  const train = async (name: string, params: object) => {
    const log0 = svc.output().length;
    const cpu0 = trainerCpuS();
    t = performance.now();
    const r = await c.json("/models/train", { model_name: name, model_type: "prediction", dataset_id: up.datasetId, label_column: LABEL, params });
    if (r.status >= 300) throw new Error(`POST /models/train: ${r.status} ${JSON.stringify(r.body)}`);
    const { job, wallS } = await until(r.body.job_id, t);
    const cpuS = trainerCpuS() - cpu0;
    const o = job.output ?? {};
    const stages = svc
      .output()
      .slice(log0)
      .split("\n")
      .filter((l) => l.includes(r.body.job_id) && l.includes('"stage"'))
      .map((l) => {
        const j = JSON.parse(l.slice(l.indexOf("{")));
        return `${j.stage}@${j.time.slice(11, 23)}`;
      });
    const s = o.search;
    console.log(
      `[bench] ${JSON.stringify({
        name,
        params,
        status: job.status,
        error: job.error_message ?? undefined,
        wall_s: +wallS.toFixed(2),
        trainer_cpu_s: +cpuS.toFixed(2),
        seconds: o.seconds,
        stages,
        representation: o.representation,
        rounds: o.rounds,
        stop_reason: o.stop_reason,
        validation: o.validation,
        metrics: o.metrics,
        search: s && { method: s.method, trials: s.trials?.length, best: s.best, stop: s.stop_reason ?? s.stopReason, ensemble: s.ensemble },
        load: load(),
      })}`,
    );
  };

  await train("first", FIRST);
  for (const [i, p] of SECONDS.entries()) await train(`second-${i + 1}`, p);
} finally {
  await svc.stop();
}

if (!argv.includes("--no-ref")) {
  console.log(`[bench] reference, load ${load()}`);
  const out = execFileSync("/usr/bin/python3", ["bench/service/second-model-reference.py", "--csv", CSV, "--label", LABEL], {
    encoding: "utf8",
    // OpenMP's spinning waits on a shared machine (bench/ml/THREADS.md)
    env: { ...process.env, OMP_WAIT_POLICY: "PASSIVE" },
  });
  console.log(`[bench] xgboost ${out.trim()}`);
}
