import { createInterface } from "node:readline/promises";
import type { Command } from "commander";
import { TabularClient } from "../client.js";
import { configPath, saveConfig } from "./config.js";
import { show, UsageError } from "./output.js";

/** The key from a prompt on a terminal, else from standard input (`echo $KEY | tabular login`). */
async function readKey(): Promise<string> {
  if (process.stdin.isTTY) {
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      return (await rl.question("API key (sk_…): ")).trim();
    } finally {
      rl.close();
    }
  }
  let text = "";
  for await (const chunk of process.stdin) text += chunk;
  return text.trim();
}

export function loginCommand(program: Command): void {
  program
    .command("login")
    .description(`Check a key against the service and store both in ${configPath()}`)
    .option("-u, --base-url <url>", "the service's address", process.env.TABULAR_BASE_URL || "http://127.0.0.1:8787")
    .option("-k, --api-key <key>", "the key (default: prompted, or read from standard input)")
    .action(async (o: { baseUrl: string; apiKey?: string }) => {
      const apiKey = o.apiKey || process.env.TABULAR_API_KEY || (await readKey());
      if (!apiKey.startsWith("sk_")) throw new UsageError("An API key starts with sk_.");
      const c = new TabularClient({ baseUrl: o.baseUrl, apiKey });
      // Any authenticated call proves the key; this one also names it.
      const keys = await c.call(c.api.GET("/api-keys", { params: { query: { limit: 200 } } }));
      const me = keys.items.find((k) => k.current);
      const path = saveConfig({ base_url: o.baseUrl.replace(/\/+$/, ""), api_key: apiKey });
      show({ base_url: o.baseUrl, api_key_id: me?.id ?? null, api_key_name: me?.name ?? null, config: path }, () =>
        process.stdout.write(`Logged in to ${o.baseUrl}${me ? ` with key "${me.name}" (${me.prefix}…)` : ""}; saved in ${path}\n`),
      );
    });
}
