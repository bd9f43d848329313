import { execFileSync } from "node:child_process";
import { generateApiKey, hashApiKey } from "../src/auth/api-keys";

/**
 * Where `npm start` keeps local state (D1, R2, Durable Objects, Queues), shared with wrangler dev.
 * PERSIST_TO moves it (the end-to-end tests use a fresh directory of their own).
 */
export const PERSIST_DIR = process.env.PERSIST_TO || ".wrangler/state";

/** `persistTo`: a local state directory other than PERSIST_DIR (the end-to-end tests' service). */
export type Target = { remote: boolean; persistTo?: string };

function wrangler(args: string[]): string {
  return execFileSync("npx", ["wrangler", ...args], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" },
  });
}

function where(t: Target): string[] {
  return t.remote ? ["--remote"] : ["--local", "--persist-to", t.persistTo ?? PERSIST_DIR];
}

export function applyMigrations(t: Target): void {
  wrangler(["d1", "migrations", "apply", "DB", ...where(t)]);
}

/** Run SQL and return the rows of its last statement. */
export function query<T = Record<string, unknown>>(t: Target, sql: string): T[] {
  const out = wrangler(["d1", "execute", "DB", ...where(t), "--json", "--command", sql]);
  const parsed = JSON.parse(out.slice(out.indexOf("[")));
  return (parsed[parsed.length - 1]?.results ?? []) as T[];
}

const q = (s: string) => `'${s.replace(/'/g, "''")}'`;

export interface CreatedKey {
  key: string;
  apiKeyId: string;
  orgId: string;
}

export interface KeyOptions {
  orgId?: string;
  orgName?: string;
  keyName: string;
  userName?: string;
}

/** Create an API key; with no orgId, a new organization (and a user for the key) first. */
export async function createKey(t: Target, opts: KeyOptions): Promise<CreatedKey> {
  return (await createKeys(t, [opts]))[0];
}

/** Several keys in one call to D1 (each call starts wrangler: seconds). */
export async function createKeys(t: Target, all: KeyOptions[]): Promise<CreatedKey[]> {
  const made = await Promise.all(all.map(keyStatements));
  query(t, made.flatMap((m) => m.statements).join("; "));
  return made.map((m) => m.created);
}

async function keyStatements(opts: KeyOptions): Promise<{ statements: string[]; created: CreatedKey }> {
  const now = new Date().toISOString();
  const key = generateApiKey();
  const apiKeyId = crypto.randomUUID();
  const statements: string[] = [];
  let orgId = opts.orgId;
  if (!orgId) {
    orgId = crypto.randomUUID();
    statements.push(`INSERT INTO organizations (id, name, created_at) VALUES (${q(orgId)}, ${q(opts.orgName ?? "My organization")}, ${q(now)})`);
  }
  let userId = "NULL";
  if (opts.userName) {
    const id = crypto.randomUUID();
    userId = q(id);
    statements.push(`INSERT INTO users (id, org_id, display_name, created_at) VALUES (${q(id)}, ${q(orgId)}, ${q(opts.userName)}, ${q(now)})`);
  }
  statements.push(
    `INSERT INTO api_keys (id, org_id, user_id, name, key_hash, prefix, created_at) VALUES (${q(apiKeyId)}, ${q(orgId)}, ${userId}, ${q(opts.keyName)}, ${q(await hashApiKey(key))}, ${q(key.slice(0, 10))}, ${q(now)})`,
  );
  return { statements, created: { key, apiKeyId, orgId } };
}

export async function keyIsValid(t: Target, key: string): Promise<boolean> {
  const rows = query(t, `SELECT id FROM api_keys WHERE key_hash = ${q(await hashApiKey(key))} AND revoked_at IS NULL`);
  return rows.length > 0;
}

export function revokeKey(t: Target, apiKeyId: string): number {
  query(t, `UPDATE api_keys SET revoked_at = ${q(new Date().toISOString())} WHERE id = ${q(apiKeyId)} AND revoked_at IS NULL`);
  return query<{ n: number }>(t, `SELECT count(*) AS n FROM api_keys WHERE id = ${q(apiKeyId)} AND revoked_at IS NOT NULL`)[0]?.n ?? 0;
}
