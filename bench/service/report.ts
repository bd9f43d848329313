/** bench/SERVICE-RESULTS.md from one run of bench/service/run.ts. */
import type { Stats } from "./client";
import type { Results, Series, TrainRun } from "./run";

interface Plan {
  warmup: number;
  sizes: number[];
  calls: number[];
  baselineCalls: number;
  pacedCalls: number;
  pacedGapMs: number;
  fitRepeats: number;
  ablationRounds: number;
  ablationPerRound: number;
}

const f = (x: number | null | undefined, d = 2) => (typeof x === "number" && Number.isFinite(x) ? x.toFixed(d) : "—");
/** ms with a precision that suits its size. */
const ms = (x: number | null | undefined) =>
  typeof x !== "number" || !Number.isFinite(x) ? "—" : x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x >= 1 ? x.toFixed(2) : x.toFixed(3);
const ratio = (a: number | null | undefined, b: number | null | undefined) => {
  if (typeof a !== "number" || typeof b !== "number" || !(b > 0)) return "—";
  const x = a / b;
  return `${x >= 100 ? x.toFixed(0) : x >= 1 ? x.toFixed(1) : x.toPrecision(2)}×`;
};
const rows = (n: number) => n.toLocaleString("en-US");
const kb = (b: number | undefined) =>
  b ? (b < 1024 ? `${b} B` : b >= 1024 * 1024 ? `${(b / 1024 / 1024).toFixed(1)} MB` : `${(b / 1024).toFixed(1)} KB`) : "—";

function split(t: TrainRun): string {
  const s = t.seconds;
  if (!s) return "—";
  return `${f(s.load)} / ${f(s.ssl)} / ${f(s.fit ?? s.finetune)} / ${f(s.export)} (total ${f(s.total)})`;
}

export function report(r: Results, plan: Plan): string {
  const L: string[] = [];
  const p = (...lines: string[]) => L.push(...lines);
  const infer1 = r.infer.find((x) => x.rows === 1)?.series;
  const base = (prefix: string) => r.baselines.find((b) => b.label.startsWith(prefix));

  p("# Service benchmark: training and synchronous inference through the local service, over HTTP", "");
  p(`Command: \`${r.command}\` — ${r.date}, at commit ${r.commit}.`);
  p(
    `Machine: ${r.machine.nproc} cores (${r.machine.cpu}), ${r.machine.mem}; shared with other work (other engineers' tests and ` +
      `servers run beside it), so every figure is noisy. Load average (1 / 5 / 15 min): ${r.machine.loadStart} at the start, ` +
      `${r.machine.loadBeforeInfer} before the inference series, ${r.machine.loadEnd} at the end.`,
  );
  p(
    `Versions: ${Object.entries(r.versions)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}.`,
  );
  p("");
  p(
    `The service is started the way a user starts it: \`startService()\` of test/e2e/service.ts runs scripts/start.ts ` +
      `(\`wrangler dev\` — workerd with local D1, R2, Durable Objects and Queues in a fresh state directory — plus the trainer ` +
      `process, src/container/server.ts) on free ports; it was up in ${f(r.startS, 1)} s and is stopped at the end. ` +
      `The client is this Node process: \`fetch\` (undici, keep-alive connection reuse), calls strictly sequential. ` +
      `Client time = \`performance.now()\` around \`fetch\` plus reading the whole body (JSON parsing excluded).`,
  );
  p(
    `Rate limit: the service allows 600 authenticated requests per key per minute (miniflare counts them in fixed ` +
      `wall-clock windows), so the client counts its own requests and, before a series that would not fit in the current ` +
      `window, waits for the next one: ${r.client.sent} authenticated requests, ${r.client.waits} waits (${f(r.client.waitedS, 0)} s ` +
      `in all), ${r.client.refused} × 429. Waiting never happens inside a timed call.`,
  );
  if (r.quick) p("", "**--quick run**: fewer calls, fertility only, one XGBoost fit; not the reference figures.");
  p("");

  // ---------------------------------------------------------------- targets
  p("## Targets (from the issue)", "");
  for (const d of r.datasets) {
    const jr = d.first.jobS && d.second.jobS ? d.first.jobS / d.second.jobS : null;
    const wr = d.first.wallS / d.second.wallS;
    const ok = (x: number | null) => (x === null ? "unknown" : x >= 2 ? "**met**" : "**not met**");
    p(
      `- Second model ≥ 2× faster than the first, ${d.spec.name}: job duration ${ratio(d.first.jobS, d.second.jobS)} → ${ok(jr)}; ` +
        `client wall time ${ratio(d.first.wallS, d.second.wallS)} → ${ok(wr)}. Second job reports representation ` +
        `\`${d.second.representation}\` (first: \`${d.first.representation}\`).`,
    );
  }
  if (infer1) {
    const c = infer1.client;
    p(
      `- Warm one-row inference through the local Worker, client round trip: p50 ${ms(c.p50)} ms (target ≤ 5) → ` +
        `${c.p50 <= 5 ? "**met**" : "**not met**"}; p99 ${ms(c.p99)} ms (target ≤ 20) → ${c.p99 <= 20 ? "**met**" : "**not met**"}.` +
        (infer1.server
          ? ` Server-reported \`latency_ms\`: p50 ${infer1.server.p50}, p99 ${infer1.server.p99} ms (it leaves out part of the path, see below).`
          : ""),
    );
  }
  p("");

  // ---------------------------------------------------------------- training
  p("## Training: first vs second model on the same dataset version", "");
  p(
    "Each dataset is uploaded with `POST /datasets` (multipart), its ingest job polled to the end; then " +
      "`POST /models/train {model_type: prediction, label_column}` twice on the same dataset (one version), each job polled " +
      "every 200 ms to its end. *Job s* = `finished_at − started_at` of the job; *wall s* = client time from the POST to " +
      "the poll that saw the terminal status (includes queueing, dispatch to the trainer, and up to 200 ms of polling " +
      "granularity). *Trainer split* = `job.output.seconds` (load / ssl = building the shared representation with its SSL " +
      "encoder / finetune = boosting / export). Our models train with the service defaults (validation split, early " +
      "stopping, up to 500 rounds).",
    "",
  );
  p("| dataset | rows | upload (POST /datasets) ms | ingest job s | ingest wall s |", "|---|---:|---:|---:|---:|");
  for (const d of r.datasets)
    p(`| ${d.spec.name} | ${d.rows ? rows(d.rows) : "—"} | ${f(d.uploadMs, 0)} | ${f(d.ingestJobS)} | ${f(d.ingestWallS)} |`);
  p("");
  p(
    "| dataset | model | status | representation | job s | wall s | trainer split: load / ssl / finetune / export s | rounds (stop) | validation |",
    "|---|---|---|---|---:|---:|---|---:|---|",
  );
  for (const d of r.datasets)
    for (const t of [d.first, d.second])
      p(
        `| ${d.spec.name} | ${t.model} | ${t.status} | ${t.representation ?? "—"} | ${f(t.jobS)} | ${f(t.wallS)} | ${split(t)} | ` +
          `${t.rounds ?? "—"} (${t.stopReason ?? "—"}) | ${t.metric ?? "—"} |`,
      );
  p("");
  const xgbFit = (name: string) => (name === "fertility" ? r.ref?.fit : name === "diamonds" ? r.refDiamonds?.fit : undefined);
  p(
    `XGBoost: in-process, \`XGBClassifier\`/\`XGBRegressor\` defaults (hist), 100 rounds, n_jobs=1, on every row of the same ` +
      `CSV (what the service was given), fastest of ${plan.fitRepeats} fit${plan.fitRepeats > 1 ? "s" : ""}; no HTTP, no queue, no ` +
      "validation split, no early stopping, no representation, no artifact export — ours includes all of those.",
    "",
  );
  p(
    "| dataset | first / second: job | wall | trainer total | XGBoost fit s | ours first (job) / XGBoost | ours second (job) / XGBoost |",
    "|---|---:|---:|---:|---:|---:|---:|",
  );
  for (const d of r.datasets) {
    const x = xgbFit(d.spec.name);
    p(
      `| ${d.spec.name} | ${ratio(d.first.jobS, d.second.jobS)} | ${ratio(d.first.wallS, d.second.wallS)} | ` +
        `${ratio(d.first.seconds?.total, d.second.seconds?.total)} | ${f(x?.best_s)} | ${ratio(d.first.jobS, x?.best_s)} | ${ratio(d.second.jobS, x?.best_s)} |`,
    );
  }
  p("");

  // ---------------------------------------------------------------- inference
  p("## Synchronous inference latency (fertility)", "");
  const fm = r.datasets[0]?.first;
  p(
    `\`POST /models/{model_id}/infer\`, multipart \`file\` (CSV) + \`output_type=json\`, on the first fertility model ` +
      `(${fm?.model}); the file holds the first N rows of fertility's test fold with the label column dropped. ` +
      `${plan.warmup} warm-up calls, then the calls shown, one after another. Every call also records an \`infer_sync\` job ` +
      "once its response is built (`waitUntil`) — part of the real path, and not free: see the ablation below." +
      (r.jobsRecorded ? ` Jobs recorded for the model at the end: ${r.jobsRecorded.found} for ${r.jobsRecorded.expected} calls.` : ""),
    "",
  );
  if (r.cold)
    p(
      `First call after training (cold: artifacts read from R2, ONNX session created): client ${ms(r.cold.clientMs)} ms, ` +
        `server \`latency_ms\` ${r.cold.serverMs}.`,
      "",
    );
  p(
    "| rows | calls | client p50 ms | p99 | mean | max | server `latency_ms` p50 | p99 | mean | CSV sent | JSON received |",
    "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  );
  for (const x of r.infer) {
    const c = x.series.client,
      s = x.series.server;
    p(
      `| ${rows(x.rows)} | ${x.calls} | ${ms(c.p50)} | ${ms(c.p99)} | ${ms(c.mean)} | ${ms(c.max)} | ${s?.p50 ?? "—"} | ${s?.p99 ?? "—"} | ${f(s?.mean)} | ${kb(x.requestBytes)} | ${kb(x.series.bytes)} |`,
    );
  }
  p("");
  if (infer1?.blocks) p(`One row, client p50 per block of 100 consecutive calls: ${infer1.blocks.map(ms).join(", ")} ms.`, "");
  p("Percentiles by nearest rank; with fewer than 100 calls p99 is the maximum.", "");

  // ---------------------------------------------------------------- references
  const ref = r.ref?.predict;
  p("## Against in-process references (same rows, same run)", "");
  p("- **ours, HTTP**: the table above (client round trip).");
  p(
    "- **ours, in-process**: the same steps as `inferSync` in src/models/infer.ts — `readCsv` (raw text) → `applyFeaturizer` → " +
      "onnxruntime-web (wasm, one thread) → response table → JSON text — in this Node process on the model's own artifacts " +
      "(downloaded from `GET /models/{id}/versions/1/artifact`); no HTTP, multipart, auth, D1 or job record.",
  );
  p(
    "- **XGBoost** (in-process, Python, one thread, same rows; its model trained on the same table, 100 rounds): " +
      "`inplace` = `booster.inplace_predict` on a prepared float32 matrix (category codes) — trees only; `DataFrame` = " +
      "`predict_proba` of the scikit-learn API on a pandas DataFrame with the training categories — what a Python user " +
      "typically calls; `read_csv` = `pd.read_csv` of the same CSV text we send, categories set, then `predict_proba` — the " +
      "closest in-process analogue of our path (parse + predict), still without any HTTP.",
  );
  p(
    "",
    "Ours goes through HTTP, multipart, auth (D1 + rate limiter), one D1 look-up of the model and its versions, CSV parsing and the infer_sync job row in a local workerd; " +
      "XGBoost is a function call in the same process. The ratios compare a service call with a library call, not two " +
      "model implementations (bench/RESULTS.md does that: ORT vs XGBoost on prepared matrices).",
    "",
  );
  if (r.refError) p(`XGBoost reference failed: ${r.refError}`, "");
  for (const q of ["p50", "p99"] as const) {
    p(`**${q}, ms**`, "");
    p(
      "| rows | ours HTTP | ours in-process | XGBoost inplace | XGBoost DataFrame | XGBoost read_csv | HTTP / inplace | HTTP / DataFrame | HTTP / read_csv | in-process / read_csv |",
      "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    );
    for (const x of r.infer) {
      const h = x.series.client[q];
      const ip = r.inproc.find((y) => y.rows === x.rows)?.result.total[q];
      const xr = ref?.[String(x.rows)];
      const [a, b, c] = [xr?.inplace[q], xr?.pandas[q], xr?.pandas_csv[q]];
      p(
        `| ${rows(x.rows)} | ${ms(h)} | ${ms(ip)} | ${ms(a)} | ${ms(b)} | ${ms(c)} | ${ratio(h, a)} | ${ratio(h, b)} | ${ratio(h, c)} | ${ratio(ip, c)} |`,
      );
    }
    p("");
  }
  if (r.inproc.length) {
    p("Ours in-process, p50 of each step (ms):", "");
    p("| rows | readCsv | applyFeaturizer | ORT run | response table + JSON | total p50 | total p99 |", "|---:|---:|---:|---:|---:|---:|---:|");
    for (const x of r.inproc) {
      const s = x.result.steps;
      p(
        `| ${rows(x.rows)} | ${ms(s.parse)} | ${ms(s.featurize)} | ${ms(s.ort)} | ${ms(s.respond)} | ${ms(x.result.total.p50)} | ${ms(x.result.total.p99)} |`,
      );
    }
    p("");
  }

  // ---------------------------------------------------------------- analysis
  p("## What the one-row latency is made of", "");
  p(`Baselines, ${plan.baselineCalls} calls each after 10 warm-up calls, sequential, same service and client:`, "");
  p("| request | p50 ms | p99 | mean | server `latency_ms` p50 |", "|---|---:|---:|---:|---:|");
  const line = (s: Series | undefined | null) =>
    s && p(`| ${s.label} | ${ms(s.client.p50)} | ${ms(s.client.p99)} | ${ms(s.client.mean)} | ${s.server?.p50 ?? "—"} |`);
  for (const b of r.baselines) line(b);
  if (infer1) line({ ...infer1, label: `infer 1 row, back-to-back (the series above, ${infer1.client.n} calls)` });
  line(r.paced);
  p("");
  const health = base("GET /health"),
    auth = base("GET /models/x"),
    list = base("GET /models?limit"),
    i404 = base("POST /models/{unknown}");
  const ip1 = r.inproc.find((x) => x.rows === 1)?.result;
  if (health && auth && i404 && infer1) {
    const d = (a: Stats, b: Stats) => ms(a.p50 - b.p50);
    p("Differences of p50s (rough: each is a difference of noisy medians):", "");
    p(
      `- ${ms(health.client.p50)} ms — HTTP on loopback + workerd's entry (miniflare's entry worker in front of ours) + Hono routing; ` +
        "no I/O (GET /health). The floor of any call to the local Worker.",
    );
    p(
      `- ${d(auth.client, health.client)} ms — the auth middleware (src/api/auth.ts \`authenticate\`): SHA-256 of the key, one D1 ` +
        "query (api_keys ⨝ users), and `RATE_LIMITER.limit()`, which in local dev is a call to miniflare's rate-limiter Durable " +
        "Object doing a SQLite read and write per request (node_modules/miniflare/dist/src/workers/ratelimit/ratelimit-object.worker.js). " +
        "Every authenticated request pays it.",
    );
    if (list) p(`- ${d(list.client, auth.client)} ms — the model list query of GET /models?limit=1, for the scale of a local D1 query.`);
    p(`- ${d(i404.client, auth.client)} ms — multipart parsing of a one-row file plus \`findModelWithVersions\` (one D1 query) → 404.`);
    p(
      `- ${d(infer1.client, i404.client)} ms — everything else a one-row prediction costs: reading the ` +
        `CSV, featurizer, ORT, the JSON response, and the infer_sync job record that follows it. The compute alone (in-process, ` +
        `same steps) takes ${ms(ip1?.total.p50)} ms p50, so this gap is nearly all I/O and the job record — see the ablation below.`,
    );
    if (r.paced)
      p(
        `- With a ${plan.pacedGapMs} ms pause before each call (the previous call's background work finished): p50 ` +
          `${ms(r.paced.client.p50)} ms vs ${ms(infer1.client.p50)} ms back-to-back; p99 ${ms(r.paced.client.p99)} vs ${ms(infer1.client.p99)} ms.` +
          (r.paced.client.p50 >= infer1.client.p50 * 0.9
            ? " Pausing does not make a call faster, so what a call pays is not left over from the previous call: it is paid within each call."
            : " Pausing helps: part of a back-to-back call's time is the previous call's background work."),
      );
    p("");
  }
  const ab = r.ablation;
  if (ab) {
    p("### Ablation: a patched copy of the service", "");
    if (ab.skipped || !ab.cells.length) p(`Skipped: ${ab.skipped ?? "no data"}.`, "");
    else {
      p(
        "bench/service/ablation.ts copies the working tree to a temporary directory, patches the copy (not the repository) so that " +
          "a request header skips the infer_sync job record (`deps.defer(recordJob(…))` in src/models/infer.ts) and a first " +
          "middleware reports the time spent inside the Worker's fetch handler (`x-bench-worker-ms`, 1 ms clock), starts the copy " +
          `the same way, trains one fertility model, and calls each request below ${ab.perRound} times per round, ${ab.rounds} ` +
          "interleaved rounds (same one-row file as above).",
        "",
      );
      p("| request | client p50 ms | p99 | mean | inside the fetch handler, mean ms |", "|---|---:|---:|---:|---:|");
      for (const x of ab.cells) p(`| ${x.label} | ${ms(x.client.p50)} | ${ms(x.client.p99)} | ${ms(x.client.mean)} | ${f(x.workerMean)} |`);
      p("");
      const [rec, skip, i4, au, he] = ab.cells;
      if (rec && skip && i4 && au && he) {
        const inHandler = (rec.workerMean ?? NaN) - (skip.workerMean ?? NaN);
        const total = rec.client.mean - skip.client.mean;
        p(
          `- The job record costs a one-row call ${ms(rec.client.p50 - skip.client.p50)} ms at p50 (${ms(total)} ms mean): ` +
            `${ms(rec.client.p50)} → ${ms(skip.client.p50)} ms without it. Only ${ms(inHandler)} ms of that (mean) is spent inside ` +
            "the fetch handler; the rest lands between the handler returning and the client having the response, i.e. the " +
            "response waits for the background work. The record is one D1 insert (src/jobs/service.ts `recordFinishedJob`, run " +
            "through `waitUntil`); workerd runs our Worker, local D1 and miniflare's entry worker in one process, and the figures " +
            "are consistent with that background write running ahead of relaying our response.",
        );
        p(
          `- Without the job record, a one-row prediction is ${ms(skip.client.p50 - i4.client.p50)} ms (p50) above the 404 of an ` +
            `unknown model (auth + multipart + one D1 query), which is itself ${ms(i4.client.p50 - au.client.p50)} ms above auth alone; ` +
            `auth + rate limiter are ${ms(au.client.p50 - he.client.p50)} ms above GET /health (${ms(he.client.p50)} ms, no auth).`,
        );
        p(
          `- Inside the handler a one-row call spends ${f(skip.workerMean)} ms without the record, ${f(i4.workerMean)} ms for the ` +
            `404 path and ${f(au.workerMean)} ms for auth alone (1 ms clock: means of integers); the client sees ` +
            `${ms(he.client.p50)} ms for a handler that takes 0 ms (GET /health), the fixed cost of HTTP + workerd + the entry worker.`,
        );
        p("");
      }
    }
  }
  if (infer1?.server) {
    const big = r.infer[r.infer.length - 1];
    const ipBig = r.inproc.find((x) => x.rows === big.rows)?.result.total.p50;
    p(
      `Server \`latency_ms\` is \`Date.now()\` in the route handler (src/api/routes/models.ts), after the auth middleware, to just ` +
        "before the JSON response is built (src/models/infer.ts): it leaves out workerd's entry, auth and the rate limiter, " +
        "serializing and sending the response, and the job record's effect on it. It tracks the in-handler work well: " +
        `${rows(big.rows)} rows report p50 ${big.series.server?.p50} ms for ${ms(ipBig)} ms of the same compute in-process, while the ` +
        `client sees ${ms(big.series.client.p50)} ms; one row reports ${infer1.server.p50} ms while the client sees ${ms(infer1.client.p50)} ms.`,
      "",
    );
  }
  if (r.anomalies.length) {
    p("## Anomalies seen in this run", "");
    for (const a of r.anomalies) p(`- ${a}`);
    p("");
  }
  p("No timing here is asserted; compare ratios measured in one run rather than absolute figures across runs.");
  return `${L.join("\n")}\n`;
}
