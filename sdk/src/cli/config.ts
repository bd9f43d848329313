/**
 * Where the CLI finds the service and its key: TABULAR_BASE_URL / TABULAR_API_KEY when set,
 * else the file `tabular login` wrote ($XDG_CONFIG_HOME/tabular-ml/config.json, or
 * ~/.config/tabular-ml/config.json), readable by its owner only since it holds a secret.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { UsageError } from "./output.js";

export interface Config {
  base_url: string;
  api_key: string;
}

export function configPath(): string {
  const root = process.env.XDG_CONFIG_HOME || join(homedir(), ".config");
  return join(root, "tabular-ml", "config.json");
}

function readFile(): Partial<Config> {
  try {
    return JSON.parse(readFileSync(configPath(), "utf8"));
  } catch {
    return {};
  }
}

export function loadConfig(): Config {
  const file = readFile();
  const base_url = process.env.TABULAR_BASE_URL || file.base_url;
  const api_key = process.env.TABULAR_API_KEY || file.api_key;
  if (!base_url || !api_key) throw new UsageError("Not logged in: run `tabular login` (or set TABULAR_BASE_URL and TABULAR_API_KEY).");
  return { base_url, api_key };
}

export function saveConfig(c: Config): string {
  const path = configPath();
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, `${JSON.stringify(c, null, 2)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return path;
}
