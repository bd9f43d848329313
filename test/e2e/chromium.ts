/**
 * Debian's Chromium for the console tests: found on PATH, or installed with apt-get the way
 * `bench:ml` installs its Python packages (as root, or through `sudo -n` when that works). When
 * it cannot be had, the reason is returned and the browser tests skip with it.
 */
import { execFileSync, spawnSync } from "node:child_process";

const CANDIDATES = ["chromium", "chromium-browser"];

function which(): string | undefined {
  for (const name of CANDIDATES) {
    const r = spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" });
    if (r.status === 0 && r.stdout.trim()) return r.stdout.trim();
  }
  return undefined;
}

const ok = (cmd: string, args: string[]) => spawnSync(cmd, args, { stdio: "ignore" }).status === 0;

export function ensureChromium(): { path?: string; reason?: string } {
  const found = which();
  if (found) return { path: found };
  if (!ok("sh", ["-c", "command -v apt-get"])) return { reason: "Chromium is not installed and apt-get is unavailable (install Debian's chromium)" };
  const root = process.getuid?.() === 0;
  if (!root && !ok("sudo", ["-n", "true"])) return { reason: "Chromium is not installed and apt-get needs root (no passwordless sudo)" };
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const run = (args: string[]) =>
    root ? execFileSync("apt-get", args, { stdio: "inherit", env }) : execFileSync("sudo", ["-n", "apt-get", ...args], { stdio: "inherit", env });
  console.log("installing chromium with apt-get …");
  try {
    run(["update"]);
    run(["install", "-y", "chromium"]);
  } catch (e) {
    return { reason: `apt-get could not install chromium (${(e as Error).message.split("\n")[0]})` };
  }
  const path = which();
  return path ? { path } : { reason: "apt-get ran but no chromium binary is on PATH" };
}
