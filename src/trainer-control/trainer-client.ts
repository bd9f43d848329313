import { getContainer } from "@cloudflare/containers";
import type { TrainerAssignment, TrialAssignment } from "../container/wire";
import { MAX_SEARCH_INSTANCES } from "../core/limits";

export type TrainerMode = "inline" | "url" | "container";

export function trainerMode(env: Env): TrainerMode {
  // Typed from wrangler.toml's literal defaults; deployments and tests override them.
  if (String(env.TRAINER_URL ?? "")) return "url";
  return String(env.TRAINER_MODE) === "inline" ? "inline" : "container";
}

/**
 * Hand a job to the trainer. It answers 202 at once and works in the background; a refusal or an
 * unreachable trainer throws, and the consumer retries the job with back-off.
 */
export async function dispatchToTrainer(env: Env, assignment: TrainerAssignment): Promise<void> {
  const init: RequestInit = {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${env.INTERNAL_SECRET}` },
    body: JSON.stringify(assignment),
  };
  // Locally the jobs are spread over the trainer processes by their id (production's one
  // container per job, as near as a few processes get), each passing over to the next when refused.
  if (trainerMode(env) === "url") return dispatchToUrls(rotated(trainerUrls(env), idHash(assignment.job_id)), init);
  // One container per job: trainings never compete for a CPU, and a crash takes one job down.
  const res = await getContainer(env.TRAINER, assignment.job_id).fetch(new Request("http://trainer/jobs", init));
  if (res.status !== 202) throw await refusal(res);
}

/**
 * Trainer instances one model search runs its trials on at once (and a large batch its row ranges): locally, every trainer process
 * (`npm start` runs one per core); in production SEARCH_INSTANCES (default 4, within the container
 * binding's max_instances); without a trainer (the test pool), 1: the trials run one after the other.
 */
export function searchInstances(env: Env): number {
  const mode = trainerMode(env);
  if (mode === "inline") return 1;
  const n = mode === "url" ? trainerUrls(env).length : Number(env.SEARCH_INSTANCES) || 4;
  return Math.max(1, Math.min(MAX_SEARCH_INSTANCES, Math.floor(n)));
}

/** The container instance that runs a search's trials of `slot` (a job's slots never share an instance). */
export const trialInstanceName = (jobId: string, slot: number) => `${jobId}/trials/${slot}`;

/**
 * Hand a trial of a job's search to the instance of its slot: locally the trainer process of that
 * number (another one when it is busy), in production a container of its own per slot.
 */
export async function dispatchTrialToTrainer(env: Env, assignment: TrialAssignment, slot: number): Promise<void> {
  const init: RequestInit = {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${env.INTERNAL_SECRET}` },
    body: JSON.stringify(assignment),
  };
  const mode = trainerMode(env);
  // searchInstances is 1 there: a search sends no trials
  if (mode === "inline") throw new Error("this deployment has no trainer instances to run search trials on");
  if (mode === "url") return dispatchToUrls(rotated(trainerUrls(env), slot), init, "/trials");
  const res = await getContainer(env.TRAINER, trialInstanceName(assignment.job_id, slot)).fetch(new Request("http://trainer/trials", init));
  if (res.status !== 202) throw await refusal(res);
}

/** The list from its `first % length`-th element on, round to the start. */
function rotated<T>(list: T[], first: number): T[] {
  const k = first % list.length;
  return [...list.slice(k), ...list.slice(0, k)];
}

/** A small, stable hash of a job id (FNV-1a), to pick its trainer. */
function idHash(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** TRAINER_URL: one trainer's address, or several separated by commas (`npm start` with TRAINERS). */
const trainerUrls = (env: Env) =>
  String(env.TRAINER_URL)
    .split(",")
    .map((u) => u.trim())
    .filter(Boolean);

/**
 * The first trainer that takes the job: one that is stopping (503) or gone is passed over for the
 * next, as the platform would start another instance.
 */
async function dispatchToUrls(urls: string[], init: RequestInit, path = "/jobs"): Promise<void> {
  let last: Error = new Error("no trainer address");
  for (const url of urls) {
    try {
      const res = await fetch(new URL(path, url), init);
      if (res.status === 202) return;
      last = await refusal(res);
    } catch (e) {
      last = e instanceof Error ? e : new Error(String(e));
    }
  }
  throw last;
}

async function refusal(res: Response): Promise<Error> {
  return new Error(`the trainer did not accept the job (HTTP ${res.status}: ${(await res.text()).slice(0, 200)})`);
}
