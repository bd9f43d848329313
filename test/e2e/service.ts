/**
 * Starts the service the way a user does (`npm start`: wrangler dev plus the trainer process)
 * on free ports with a fresh state directory, and hands back its address and printed API key.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseJobId } from "../../src/jobs/ids";
import { answerProblems, type Doc } from "../openapi-answers";

export interface RunningService {
  base: string;
  key: string;
  /** The process group of the service (npm start's process, wrangler, workerd, the trainer). */
  pgid: number;
  stop(): Promise<void>;
  output(): string;
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });
}

/**
 * Ports are drawn below Linux's ephemeral range (32768–60999): a port the OS hands out (listen on
 * 0) lies inside it, where any outgoing connection may take it as its source port before the
 * service binds it, and npm start puts the further trainers on the ports after TRAINER_PORT. A
 * fresh-clone run lost its second trainer so (EADDRINUSE on 37864, its restarts failing alike).
 */
const PORT_RANGE = { from: 20000, size: 12000 };

async function freePort(): Promise<number> {
  for (;;) {
    const port = PORT_RANGE.from + Math.floor(Math.random() * PORT_RANGE.size);
    if (await portFree(port)) return port;
  }
}

/**
 * `env`: more of npm start's settings (TRAINERS, TRAINER_RESTART, …); `cwd`: the checkout to run
 * (a benchmark compares two); `stateDir`: a state directory to start from (the same data and API
 * key as a service stopped before), which the caller removes: a fresh one, removed at stop, by default;
 * `logFile`: where its output is also written, for other processes to read (the shared service).
 */
/**
 * How long a service may take to start. A start bundles the Worker and starts workerd and the
 * trainers (~20 s of both cores alone); with the suite's three test workers, several starts and
 * the engine's tests at once took over 120 s in one fresh-clone run (2026-11-29).
 */
export const SERVICE_START_MS = 240_000;

export async function startService(
  timeoutMs = SERVICE_START_MS,
  env: Record<string, string> = {},
  cwd = process.cwd(),
  stateDir?: string,
  logFile?: string,
): Promise<RunningService> {
  const state = stateDir ?? mkdtempSync(join(tmpdir(), "tabular-e2e-"));
  const [port, trainerPort] = [await freePort(), await freePort()];
  let log = "";
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts"], {
    // one trainer unless a test asks for more (npm start's default is one per core)
    env: { ...process.env, TRAINERS: "1", ...env, PORT: String(port), TRAINER_PORT: String(trainerPort), PERSIST_TO: state, HOST: "127.0.0.1" },
    cwd,
    stdio: ["ignore", "pipe", "pipe"],
    // Its own process group, so that stopping it stops wrangler, workerd and the trainer too.
    detached: true,
  });
  const take = (d: Buffer) => {
    log += d.toString();
    if (logFile) appendFileSync(logFile, d);
  };
  child.stdout!.on("data", take);
  child.stderr!.on("data", take);
  const stop = async () => {
    if (child.exitCode === null) {
      try {
        process.kill(-child.pid!, "SIGTERM");
      } catch {
        // already gone
      }
      await new Promise((r) => setTimeout(r, 500));
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // already gone
      }
    }
    if (!stateDir) rmSync(state, { recursive: true, force: true });
  };
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const key = log.match(/API key: (sk_\S+)/)?.[1];
    if (key) return { base: `http://127.0.0.1:${port}`, key, pgid: child.pid!, stop, output: () => log };
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  await stop();
  throw new Error(`the service did not start:\n${log.slice(-4000)}`);
}

/** The files of the `e2e` project, which share one service (./shared-service.ts), each with its own organization. */
export const SHARED_SERVICE_FILES = ["console", "presigned-upload", "sdk-cli", "train-infer"] as const;
type SharedFile = (typeof SHARED_SERVICE_FILES)[number];

/** What the end-to-end project's global set-up hands to its test files (at once: the service starts meanwhile). */
export interface SharedServiceInfo {
  dir: string;
  logFile: string;
  /** Written once the service answers: a SharedServiceReady, or `{ error }`. */
  readyFile: string;
}

/** The shared service once it answers: its address, its process group and an API key per file, each of its own organization. */
export interface SharedServiceReady {
  base: string;
  keys: Record<string, string>;
  pgid: number;
}

declare module "vitest" {
  export interface ProvidedContext {
    sharedService: SharedServiceInfo;
  }
}

/**
 * The service the `e2e` files share (started by ./shared-service.ts), with `file`'s own key, once
 * it answers: its output is read from the file it is written to, and stopping it is the set-up's
 * job, not a test file's. `info`: `inject("sharedService")`.
 */
export async function sharedService(info: SharedServiceInfo, file: SharedFile, timeoutMs = SERVICE_START_MS + 60_000): Promise<RunningService> {
  const end = Date.now() + timeoutMs;
  while (!existsSync(info.readyFile)) {
    if (Date.now() > end) throw new Error(`the shared service did not start within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
  const ready = JSON.parse(readFileSync(info.readyFile, "utf8")) as SharedServiceReady | { error: string };
  if ("error" in ready) throw new Error(`the shared service did not start: ${ready.error}`);
  const output = () => readFileSync(info.logFile, "utf8");
  return { base: ready.base, key: ready.keys[file], pgid: ready.pgid, stop: async () => {}, output };
}

/** A churn table of `rows` rows (usage, plan, churned) that every end-to-end test uploads. */
export function table(rows: number): string {
  const lines = ["usage,plan,churned"];
  for (let i = 0; i < rows; i++) {
    const usage = (i * 37) % 100;
    const plan = ["basic", "pro", "team"][i % 3];
    lines.push(`${usage},${plan},${usage < 30 || plan === "basic" ? "yes" : "no"}`);
  }
  return `${lines.join("\n")}\n`;
}

const documents = new Map<string, Promise<Doc>>();

/**
 * A call to the service's API with its key: the status and the parsed JSON body (null when
 * empty). Every answer is checked against the service's own OpenAPI document first (its status
 * documented, its headers, its body's schema): an answer the document does not describe fails.
 */
export async function apiCall(svc: RunningService, path: string, init: RequestInit = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(svc.base + path, { ...init, headers: { Authorization: `Bearer ${svc.key}`, ...(init.headers ?? {}) } });
  if (!documents.has(svc.base))
    documents.set(
      svc.base,
      fetch(`${svc.base}/openapi.json`).then((r) => r.json() as Promise<Doc>),
    );
  const problems = await answerProblems(await documents.get(svc.base)!, init.method ?? "GET", path, res);
  if (problems.length) throw new Error(`the answer is not the documented one:\n${problems.join("\n")}`);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** Polls `probe` every 250 ms until `done`; past `timeoutMs` fails naming `what`, with the service's last output. */
export async function pollUntil<T>(
  svc: RunningService,
  what: string,
  probe: () => Promise<T> | T,
  done: (v: T) => boolean,
  timeoutMs: number,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: T;
  do {
    last = await probe();
    if (done(last)) return last;
    await new Promise((r) => setTimeout(r, 250));
  } while (Date.now() < end);
  throw new Error(`timed out waiting for ${what}: ${JSON.stringify(last)}\n${svc.output().slice(-4000)}`);
}

/**
 * The lines of the service's output about one job (its id as the API shows it): on a service
 * several test files share, what another file's jobs logged does not count.
 */
function jobLog(svc: RunningService, jobId: string): string {
  const id = parseJobId(jobId) ?? jobId;
  return svc
    .output()
    .split("\n")
    .filter((line) => line.includes(id) || line.includes(jobId))
    .join("\n");
}

/**
 * The job's lines once they match `pattern`: a line written as the job ends (its summary) may
 * reach the log a moment after the job's record says it ended (another process, another pipe).
 */
export function jobLogMatching(svc: RunningService, jobId: string, pattern: RegExp, timeoutMs = 15_000): Promise<string> {
  return pollUntil(
    svc,
    `a log line of job ${jobId} matching ${pattern}`,
    () => jobLog(svc, jobId),
    (log) => pattern.test(log),
    timeoutMs,
  );
}

/** Whether a job has ended. */
export const isTerminal = (j: any) => ["succeeded", "failed", "canceled"].includes(j?.status);

/**
 * The service's JSON log lines so far (the Worker's and the trainers'). Several processes write
 * to the same pipe, so a line may come cut into another: those are skipped.
 */
export function jsonLogLines(svc: RunningService): any[] {
  const out: any[] = [];
  for (const line of svc.output().split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      // interleaved with another process's output
    }
  }
  return out;
}
