/**
 * The trainer's memory, which sizes what it ingests (trainerMaxFrameCells in src/core/limits.ts):
 * TRAINER_MEMORY_MB when set (a local trainer given less than the machine), else what the
 * operating system allows this process: its cgroup's limit when it has one (a container), else
 * the machine's memory (a Cloudflare Container is a VM of the instance type's memory).
 */
import { totalmem } from "node:os";
import { TRAINER_MEMORY_ENV, trainerMaxFrameCells } from "../core/limits";

const MiB = 1024 * 1024;

/** @internal exported for its unit test (test/training/trainer-memory.test.ts) */
export function trainerMemoryBytes(
  env: Record<string, string | undefined> = process.env,
  system = { total: totalmem(), constrained: process.constrainedMemory() },
): number {
  const raw = env[TRAINER_MEMORY_ENV];
  if (raw !== undefined && raw !== "") {
    const mb = Number(raw);
    if (!Number.isFinite(mb) || mb <= 0) throw new Error(`${TRAINER_MEMORY_ENV} must be a positive number of MiB (got "${raw}")`);
    return mb * MiB;
  }
  // Node answers 0 (older libuv) or a huge number when there is no cgroup limit
  const { total, constrained } = system;
  return constrained > 0 && constrained < total ? constrained : total;
}

/** The cells of one frame this trainer ingests at most. */
export const trainerFrameCells = (env: Record<string, string | undefined> = process.env) => trainerMaxFrameCells(trainerMemoryBytes(env));
