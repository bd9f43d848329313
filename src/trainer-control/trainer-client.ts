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
  const res =
    trainerMode(env) === "url"
      ? await fetch(new URL("/jobs", String(env.TRAINER_URL)), init)
      : // One container per job: trainings never compete for a CPU, and a crash takes one job down.
        await getContainer(env.TRAINER, assignment.job_id).fetch(new Request("http://trainer/jobs", init));
  if (res.status !== 202) {
    throw new Error(`the trainer did not accept the job (HTTP ${res.status}: ${(await res.text()).slice(0, 200)})`);
  }
}
