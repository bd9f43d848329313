/**
 * `npm start`: the whole service on this machine. Applies migrations to the local D1, makes sure
 * a local organization and API key exist (kept in .wrangler/local-api-key.json), then runs
 * `wrangler dev` with embedded D1, R2, Durable Objects and Queues, and beside it the trainer
 * (src/container/server.ts) as a local process — containers need Docker, which local
 * development does not have — and prints the key.
 * PORT picks the Worker's port (default: the first free one from 8787), TRAINER_PORT the
 * trainer's (default: the first free one after it); TRAINERS, TRAINER_RESTART and
 * TRAINER_MEMORY_MB below.
 */

import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { availableParallelism } from "node:os";
import { dirname } from "node:path";
import { TRAINER_HEAP_PERCENT, TRAINER_MEMORY_ENV } from "../src/core/limits";
import { applyMigrations, createKey, keyIsValid, PERSIST_DIR } from "./d1";

// Beside a state directory of its own (PERSIST_TO), the key lives in that directory.
const KEY_FILE = process.env.PERSIST_TO ? `${process.env.PERSIST_TO}/local-api-key.json` : ".wrangler/local-api-key.json";
const local = { remote: false };

function randomSecret(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex");
}

function ensureDevVars(): void {
  if (existsSync(".dev.vars")) return;
  writeFileSync(".dev.vars", `INTERNAL_SECRET=${randomSecret()}\nSIGNING_SECRET=${randomSecret()}\n`);
}

function portFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, host, () => srv.close(() => resolve(true)));
  });
}

/** `taken`: ports chosen already but not yet bound (the Worker's starts after the trainers'). */
async function choosePort(host: string, given: string | undefined, from: number, name: string, taken: number[] = []): Promise<number> {
  if (given) return Number(given);
  for (let p = from; p < from + 100; p++) if (!taken.includes(p) && (await portFree(p, host))) return p;
  throw new Error(`no free port between ${from} and ${from + 99}; set ${name}`);
}

function devVar(name: string): string {
  const line = readFileSync(".dev.vars", "utf8")
    .split("\n")
    .find((l) => l.startsWith(`${name}=`));
  if (!line) throw new Error(`.dev.vars has no ${name}; delete it and run npm start again to regenerate it`);
  return line.slice(name.length + 1).trim();
}

async function ensureLocalKey(): Promise<string> {
  if (existsSync(KEY_FILE)) {
    const saved = JSON.parse(readFileSync(KEY_FILE, "utf8")) as { key: string };
    if (await keyIsValid(local, saved.key)) return saved.key;
  }
  const created = await createKey(local, { orgName: "Local organization", keyName: "local development", userName: "Local Developer" });
  mkdirSync(dirname(KEY_FILE), { recursive: true });
  writeFileSync(KEY_FILE, JSON.stringify(created, null, 2));
  return created.key;
}

async function waitForHealth(base: string, child: ReturnType<typeof spawn>): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited with code ${child.exitCode}`);
    try {
      if ((await fetch(`${base}/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error("wrangler dev did not become healthy within 60 s");
}

/** The local bucket's S3 credentials, as wrangler.toml declares them (local_dev). */
function localS3Credentials(): { accessKeyId: string; secretAccessKey: string } {
  const toml = readFileSync("wrangler.toml", "utf8");
  const m = /experimental_s3_credentials\s*=\s*\{\s*accessKeyId\s*=\s*"([^"]+)"\s*,\s*secretAccessKey\s*=\s*"([^"]+)"/.exec(toml);
  if (!m) throw new Error("wrangler.toml has no local_dev.experimental_s3_credentials on the R2 bucket");
  return { accessKeyId: m[1], secretAccessKey: m[2] };
}

const LOCAL_S3 = localS3Credentials();
const host = process.env.HOST ?? "127.0.0.1";
ensureDevVars();
console.log("Applying D1 migrations to the local database…");
applyMigrations(local);
const key = await ensureLocalKey();
const port = await choosePort(host, process.env.PORT, 8787, "PORT");
// TRAINERS=n runs n trainer processes (on consecutive free ports; default: one per core), to which
// the Worker hands each job to the first that takes it, as the platform starts another container:
// this is how a trainer stopping (SIGTERM) hands its job over to another one, and how a model
// search runs its trials on several instances at once. TRAINER_RESTART=0 turns the supervisor's
// restart off (nothing restarts a stopped container on Cloudflare either).
const trainerCount = Math.max(1, Number(process.env.TRAINERS ?? availableParallelism()) || 1);
const restartTrainers = process.env.TRAINER_RESTART !== "0";
const trainerPorts: number[] = [];
for (let i = 0; i < trainerCount; i++) {
  const after = trainerPorts.at(-1) ?? port;
  trainerPorts.push(
    i === 0 && process.env.TRAINER_PORT
      ? Number(process.env.TRAINER_PORT)
      : await choosePort("127.0.0.1", undefined, after + 1, "TRAINER_PORT", [port, ...trainerPorts]),
  );
}
const base = `http://${host}:${port}`;
const trainerUrls = trainerPorts.map((p) => `http://127.0.0.1:${p}`);
// Node directly (not npx): a signal must reach the trainer itself, not a wrapper. Supervised as
// the container binding would be: a trainer that dies is started again (its lost jobs are then
// restarted by the Worker), unless it keeps dying or TRAINER_RESTART=0.
let stopping = false;
const trainerExits: number[] = [];
// TRAINER_MEMORY_MB=n sizes each trainer as an instance of n MiB would be: its heap the same share
// as the container's (TRAINER_HEAP_PERCENT) and the cells it ingests (the trainer reads the
// variable itself). It does not cap the process's memory: the OS or a cgroup does that.
const trainerMemoryMb = Number(process.env[TRAINER_MEMORY_ENV] ?? 0);
const trainerHeap = trainerMemoryMb > 0 ? [`--max-old-space-size=${Math.floor((trainerMemoryMb * TRAINER_HEAP_PERCENT) / 100)}`] : [];
function startTrainer(index: number): ReturnType<typeof spawn> {
  const proc = spawn(process.execPath, [...trainerHeap, "--import", "tsx", "src/container/server.ts"], {
    stdio: ["ignore", "inherit", "inherit"],
    env: {
      ...process.env,
      TRAINER_MAIN: "1",
      PORT: String(trainerPorts[index]),
      HOST: "127.0.0.1",
      CONTROL_URL: `http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${port}`,
      CONTROL_SECRET: devVar("INTERNAL_SECRET"),
      // Every trainer on every core, as a container gets all of its instance's vCPUs: a job alone
      // (the usual case) then trains at the machine's speed, not at 1/n of it. The threads wait
      // without spinning (Atomics.wait), so trainers busy at once share the cores at little cost.
      TRAINER_THREADS: process.env.TRAINER_THREADS ?? String(availableParallelism()),
      // One of several: a restarted one must not restart the jobs the others are running.
      ...(trainerCount > 1 ? { TRAINER_ANNOUNCE_START: "0" } : {}),
    },
  });
  console.log(`[start] trainer process started (pid ${proc.pid}) on port ${trainerPorts[index]}`);
  proc.on("exit", (code, signal) => {
    if (stopping) return;
    if (!restartTrainers) {
      console.error(`[start] trainer ${index + 1} exited (code ${code}, signal ${signal}); not restarted (TRAINER_RESTART=0)`);
      return;
    }
    const now = Date.now();
    trainerExits.push(now);
    const recent = trainerExits.filter((t) => now - t < 60_000).length;
    if (recent > 5) {
      console.error(`the trainer exited ${recent} times within a minute (last: code ${code}, signal ${signal}); stopping`);
      child.kill("SIGTERM");
      return;
    }
    console.error(`[start] the trainer exited (code ${code}, signal ${signal}); starting it again`);
    setTimeout(() => {
      if (!stopping) trainers[index] = startTrainer(index);
    }, 500);
  });
  return proc;
}
const trainers = trainerPorts.map((_, i) => startTrainer(i));
// The whole service stops: the trainers stop at once (SIGINT), with no hand-back to a Worker that
// is going away; their jobs are restarted at the next start.
const stopTrainers = () => {
  for (const t of trainers) t.kill("SIGINT");
};
const child = spawn(
  "npx",
  [
    "wrangler",
    "dev",
    "--ip",
    host,
    "--port",
    String(port),
    "--persist-to",
    PERSIST_DIR,
    "--show-interactive-dev-session=false",
    "--var",
    `TRAINER_URL:${trainerUrls.join(",")}`,
    // Signed uploads as in production: presigned S3 URLs, here for the local bucket's S3 endpoint,
    // with the credentials wrangler.toml gives it (local_dev.experimental_s3_credentials).
    "--var",
    "R2_S3_ENDPOINT:local",
    "--var",
    `R2_ACCESS_KEY_ID:${LOCAL_S3.accessKeyId}`,
    "--var",
    `R2_SECRET_ACCESS_KEY:${LOCAL_S3.secretAccessKey}`,
  ],
  { stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, WRANGLER_SEND_METRICS: "false" } },
);
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, () => {
    stopping = true;
    stopTrainers();
    child.kill(sig);
  });
}
child.on("exit", (code) => {
  stopping = true;
  stopTrainers();
  process.exit(code ?? 0);
});
await waitForHealth(base, child);
console.log(`
  Tabular ML service running at ${base}  (trainer at ${trainerUrls.join(", ")})
  API key: ${key}

  Try:  curl -H "Authorization: Bearer ${key}" ${base}/datasets
`);
