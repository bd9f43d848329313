/**
 * The global set-up of the `e2e` project: one service (`npm start`) shared by its test files,
 * instead of one started per file (each start bundles the Worker and starts workerd and the
 * trainers: ~20 s of both cores). Each file gets an organization of its own (a key made as
 * `npm run key:create` makes one), so lists and names stay its own. Files that need a service of
 * their own (several trainers, a trainer killed or stopped, a restart on the same state) are in
 * the `e2e-own-service` project.
 *
 * The service starts in the background: a global set-up that waited for it would hold every test
 * file back. The files wait for its `ready.json` (./service.ts sharedService).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { createKeys } from "../../scripts/d1";
import { type RunningService, SERVICE_START_MS, SHARED_SERVICE_FILES, type SharedServiceReady, startService } from "./service";

export default function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), "tabular-e2e-shared-"));
  const [state, logFile, readyFile] = [join(dir, "state"), join(dir, "service.log"), join(dir, "ready.json")];
  let svc: RunningService | undefined;
  const started = (async () => {
    // One trainer, as the files were written for: a model search then runs its trials in the
    // trainer itself (more trainers fan them out: ./search-fan-out.test.ts has its own service).
    svc = await startService(SERVICE_START_MS, { TRAINERS: "1" }, process.cwd(), state, logFile);
    const made = await createKeys(
      { remote: false, persistTo: state },
      SHARED_SERVICE_FILES.map((file) => ({ orgName: `e2e ${file}`, keyName: file, userName: "E2E Tester" })),
    );
    const keys = Object.fromEntries(SHARED_SERVICE_FILES.map((file, i) => [file, made[i].key]));
    const ready: SharedServiceReady = { base: svc.base, keys, pgid: svc.pgid };
    writeFileSync(readyFile, JSON.stringify(ready));
  })().catch((e) => writeFileSync(readyFile, JSON.stringify({ error: e instanceof Error ? e.message : String(e) })));
  project.provide("sharedService", { dir, logFile, readyFile });
  // A run cut short (Ctrl-C, a timeout) may skip the teardown: the service is its own process group.
  process.once("exit", () => {
    try {
      if (svc) process.kill(-svc.pgid, "SIGKILL");
    } catch {
      // already stopped
    }
  });
  return async () => {
    await started;
    await svc?.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
