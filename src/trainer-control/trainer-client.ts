import { getContainer } from "@cloudflare/containers";
import type { TrainerAssignment } from "../container/wire";

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
  if (trainerMode(env) === "url") return dispatchToUrls(trainerUrls(env), init);
  // One container per job: trainings never compete for a CPU, and a crash takes one job down.
  const res = await getContainer(env.TRAINER, assignment.job_id).fetch(new Request("http://trainer/jobs", init));
  if (res.status !== 202) throw await refusal(res);
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
async function dispatchToUrls(urls: string[], init: RequestInit): Promise<void> {
  let last: Error = new Error("no trainer address");
  for (const url of urls) {
    try {
      const res = await fetch(new URL("/jobs", url), init);
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
