/**
 * The trainer: a small Node HTTP server that runs the ML engine. The Worker hands it a job with
 * POST /jobs {job_id, attempt}; it answers 202 at once, works in the background (a training, or a
 * batch inference over a stored dataset) and talks back only through the Worker's internal
 * control routes (data, artifacts, progress, the outcome).
 * In production it is the Cloudflare Container's process; `npm start` runs it as a local one.
 *
 * On SIGTERM it stops taking work, lets running jobs finish within a grace period and hands the
 * rest back (./shutdown).
 *
 * Environment: PORT (default 8080), HOST (default 0.0.0.0), CONTROL_URL (the Worker's address),
 * CONTROL_SECRET (the internal secret; local only: in the container the Worker adds it),
 * TRAINER_SHUTDOWN_GRACE_S (the grace period), TRAINER_ANNOUNCE_START=0 (do not report a start).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { isMainThread } from "node:worker_threads";
import { bearerToken, sameSecret } from "../auth/secrets";
import { isPermanentError, JobCanceledError } from "../jobs/errors";
import { runBatchPartInTrainer } from "./batch-part";
import { ControlClient, type ControlConfig } from "./control-client";
import { type RunOutcome, TRAINER_RUNNERS } from "./job-runners";
import { log, logError, logWarning } from "./log";
import { drain, type RunningJob, shutdownGraceMs } from "./shutdown";
import { runTrialInTrainer } from "./trial-runner";
import { batchPartSpec, TRAINER_STARTED_PATH, trainerAssignment, trainerStartedAnswer, trialAssignment } from "./wire";

/** The jobs this process works on, by job id. */
const running = new Map<string, RunningJob>();
/** Set on SIGTERM: no new work is taken. */
let draining = false;
/**
 * The search trial this process runs (one at a time: a trial uses the whole core it gets, and the
 * Worker gives each slot of a search its own instance), keyed "job:trial:run".
 */
let trialRunning: { key: string; work: RunningJob } | null = null;

export async function runJob(
  config: ControlConfig,
  jobId: string,
  attempt: number,
  client = new ControlClient(config, jobId, attempt),
): Promise<void> {
  const started = Date.now();
  const fields = () => ({ job_id: jobId, attempt, duration_ms: Date.now() - started });
  try {
    const { kind, task } = await client.task();
    // the kind's runner for the kind's task (TypeScript cannot tie the two together: one cast, here)
    const run = TRAINER_RUNNERS[kind] as (client: ControlClient, task: unknown) => Promise<RunOutcome>;
    const { output, summary } = await run(client, task);
    await client.succeed(output);
    log(`job ${jobId} attempt ${attempt}: ${summary}`, { ...fields(), kind, status: "succeeded" });
  } catch (e) {
    if (e instanceof JobCanceledError) {
      log(`job ${jobId} attempt ${attempt}: stopped (canceled or taken over)`, { ...fields(), status: "stopped" });
      return;
    }
    const message = e instanceof Error ? e.message : String(e);
    logWarning(`job ${jobId} attempt ${attempt}: failed: ${message}`, { ...fields(), status: "failed" });
    await client
      .fail(message, isPermanentError(e))
      .catch((err) => logError(`job ${jobId}: could not report the failure: ${err}`, { job_id: jobId, attempt }));
  }
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "Content-Type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8") || "null");
}

export function createTrainerServer(config: ControlConfig) {
  return createServer(async (req, res) => {
    try {
      if (req.method === "GET" && req.url === "/health") {
        const trials = trialRunning ? [trialRunning.key] : [];
        return send(res, 200, { status: draining ? "stopping" : "ok", running: [...running.keys(), ...trials] });
      }
      if (req.method !== "POST" || (req.url !== "/jobs" && req.url !== "/trials")) return send(res, 404, { detail: "Not found" });
      if (config.secret && !(await sameSecret(bearerToken(req.headers.authorization) ?? "", config.secret))) {
        return send(res, 401, { detail: "Not authenticated" });
      }
      // The Worker takes a refusal as a failed dispatch: it tries another trainer, or retries.
      if (draining) return send(res, 503, { detail: "The trainer is stopping" }, { Connection: "close" });
      if (req.url === "/trials") return acceptTrial(config, await readJson(req), res);
      const assignment = trainerAssignment.safeParse(await readJson(req));
      if (!assignment.success) return send(res, 422, { detail: "Expected {job_id: uuid, attempt: positive integer}" });
      const { job_id: jobId, attempt } = assignment.data;
      // The same assignment twice (a retried dispatch) must not start a second run.
      if (running.get(jobId)?.client.attempt !== attempt) {
        const client = new ControlClient(config, jobId, attempt);
        log(`job ${jobId} attempt ${attempt}: accepted`, { job_id: jobId, attempt, status: "accepted" });
        const done = runJob(config, jobId, attempt, client).finally(() => {
          if (running.get(jobId)?.client === client) running.delete(jobId);
        });
        running.set(jobId, { client, done });
      }
      send(res, 202, { job_id: jobId, attempt, status: "accepted" });
    } catch (e) {
      send(res, 400, { detail: e instanceof Error ? e.message : String(e) });
    }
  });
}

/** `POST /trials`: a trial of a job's model search (or a part of a large batch), run in the background; 503 while another one runs here (the Worker tries another instance). */
function acceptTrial(config: ControlConfig, body: unknown, res: ServerResponse): void {
  const a = trialAssignment.safeParse(body);
  if (!a.success) {
    send(res, 422, { detail: "Expected {job_id: uuid, attempt: positive integer, trial: integer, run: positive integer, spec: object}" });
    return;
  }
  const { job_id: jobId, attempt, trial, run } = a.data;
  // another send of the same trial is another run: refused while this one has not yet stopped
  const key = `${jobId}:${trial}:${run}`;
  if (trialRunning && trialRunning.key !== key) {
    send(res, 503, { detail: "The trainer is running another trial" });
    return;
  }
  if (trialRunning?.key === key) {
    // the same trial again (a retried dispatch): it runs already
    send(res, 202, { job_id: jobId, trial, status: "accepted" });
    return;
  }
  const client = new ControlClient(config, jobId, attempt);
  // a large batch's parts come as trials whose spec is a row range (./batch-parts)
  const part = batchPartSpec.safeParse(a.data.spec);
  const done = (part.success ? runBatchPartInTrainer(client, a.data, part.data) : runTrialInTrainer(client, a.data)).finally(() => {
    trialRunning = null;
  });
  trialRunning = { key, work: { client, trial: { trial, run }, done } };
  send(res, 202, { job_id: jobId, trial, status: "accepted" });
}

/** Tries for a minute: on the first start the Worker may not be listening yet (and has nothing to restart). */
async function announceStart(config: ControlConfig): Promise<void> {
  for (let i = 0; i < 30; i++) {
    try {
      const res = await fetch(new URL(TRAINER_STARTED_PATH, config.baseUrl), {
        method: "POST",
        headers: { Authorization: `Bearer ${config.secret}` },
      });
      if (res.ok) {
        const { restarted } = trainerStartedAnswer.parse(await res.json());
        if (restarted > 0) log(`${restarted} job(s) lost by a previous trainer process were restarted`);
        return;
      }
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 2000));
  }
}

const isMain = process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href;
// not in a worker thread: the bundle is also the frame upload thread's code (frame-stream-thread.ts)
if (isMainThread && (isMain || process.env.TRAINER_MAIN === "1")) {
  const port = Number(process.env.PORT ?? 8080);
  const host = process.env.HOST ?? "0.0.0.0";
  const config: ControlConfig = { baseUrl: process.env.CONTROL_URL ?? "http://control.internal", secret: process.env.CONTROL_SECRET || undefined };
  const server = createTrainerServer(config);
  server.listen(port, host, () => {
    log(`listening on ${host}:${port}, control at ${config.baseUrl}`);
    // The local trainer (it holds the secret; a container does not) says it started, so that the
    // jobs a previous process was running are restarted now rather than at the heartbeat timeout.
    // Not when it is one of several (`npm start` with TRAINERS): the others' jobs are not lost.
    if (config.secret && process.env.TRAINER_ANNOUNCE_START !== "0") void announceStart(config);
  });
  process.once("SIGTERM", () => {
    draining = true;
    void drain(server, () => [...running.values(), ...(trialRunning ? [trialRunning.work] : [])], shutdownGraceMs()).finally(() => process.exit(0));
  });
}
