/**
 * Starting and stopping the local service for the benchmark: test/e2e/service.ts `startService()`
 * (scripts/start.ts = wrangler dev + the trainer, free ports, fresh state), run from a given
 * directory, and a check after `stop()` that nothing of it is still running.
 *
 * The check exists because one of our runs left `wrangler dev` and its workerd behind after
 * stop() (reparented to init, still serving on the port). Leftovers are found by the port this
 * service was given (`--port N` of wrangler, `--socket-addr=entry=…:N` of workerd) in
 * /proc/<pid>/cmdline, and killed by process group id — only processes of this service.
 */
import { readdirSync, readFileSync } from "node:fs";
import { type RunningService, startService } from "../../test/e2e/service";

export interface Service extends RunningService {
  /** Stops it; returns the pids found still running after stop() (and then killed). */
  shutdown(): Promise<number[]>;
}

export async function start(dir?: string): Promise<Service> {
  const here = process.cwd();
  if (dir) process.chdir(dir); // startService spawns scripts/start.ts relative to the cwd
  try {
    const svc = await startService(180_000);
    const port = new URL(svc.base).port;
    return {
      ...svc,
      shutdown: async () => {
        await svc.stop();
        return reap(port);
      },
    };
  } finally {
    process.chdir(here);
  }
}

function cmdline(pid: string): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  } catch {
    return [];
  }
}

function pgid(pid: string): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
  } catch {
    return null;
  }
}

async function reap(port: string): Promise<number[]> {
  await new Promise((r) => setTimeout(r, 500));
  const found: number[] = [];
  const groups = new Set<number>();
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    const args = cmdline(pid);
    const wrangler = args.some((a) => a.includes("wrangler")) && args.some((a, i) => a === "--port" && args[i + 1] === port);
    const workerd = args.some((a) => a.startsWith("--socket-addr=entry=") && a.endsWith(`:${port}`));
    if (!wrangler && !workerd) continue;
    if (readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ")) continue; // zombie, already dead
    found.push(Number(pid));
    const g = pgid(pid);
    if (g && g !== pgid(String(process.pid)) && g > 1) groups.add(g);
  }
  for (const g of groups) {
    try {
      process.kill(-g, "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
  for (const pid of found) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone with its group
    }
  }
  return found;
}
