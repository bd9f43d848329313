import { openAsBlob, statSync } from "node:fs";
import { basename } from "node:path";
import { InvalidArgumentError } from "commander";
import { TabularClient } from "../client.js";
import type { Job } from "../errors.js";
import { loadConfig } from "./config.js";
import { UsageError } from "./output.js";
import { jobBar } from "./progress.js";

export function client(): TabularClient {
  const c = loadConfig();
  return new TabularClient({ baseUrl: c.base_url, apiKey: c.api_key });
}

/** A local file as a File (read lazily by streaming, not into memory). */
export async function localFile(path: string): Promise<File> {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    throw new UsageError(`No such file: ${path}`);
  }
  const blob = await openAsBlob(path);
  if (blob.size !== size) throw new UsageError(`Could not read ${path}`);
  return new File([blob], basename(path));
}

export const int = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n)) throw new InvalidArgumentError("Not an integer.");
  return n;
};

/** `key=value` options collected; values read as JSON when they parse (numbers, booleans), else strings. */
export function keyValue(v: string, acc: Record<string, unknown> = {}): Record<string, unknown> {
  const i = v.indexOf("=");
  if (i <= 0) throw new InvalidArgumentError("Expected key=value.");
  const raw = v.slice(i + 1);
  let value: unknown = raw;
  try {
    value = JSON.parse(raw);
  } catch {
    // a plain string
  }
  acc[v.slice(0, i)] = value;
  return acc;
}

/** Follow a job with a progress bar until it ends (a failed one throws: exit 3). */
export async function follow(c: TabularClient, jobId: string, label: string): Promise<Job> {
  const bar = jobBar(label);
  try {
    return await c.waitForJob(jobId, { onProgress: (j) => bar.update(j), intervalMs: 1000 });
  } finally {
    bar.stop();
  }
}

/** The query of a list page from --limit / --cursor and filters (undefined ones left out). */
export function pageQuery(o: Record<string, unknown>): Record<string, string | number> {
  const q: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined && v !== false) q[k] = v as string | number;
  return q;
}
