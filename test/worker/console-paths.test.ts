/**
 * The console's files are static assets answered before the Worker (wrangler.toml [assets]; the
 * browser test in test/e2e/console.test.ts loads them). What reaches the Worker under /console is
 * a missing file: 404 without a key, while the API around it stays closed.
 */
import { describe, expect, it } from "vitest";
import { call } from "./helpers";

describe("/console in the Worker", () => {
  it("answers a missing console file 404 without a key", async () => {
    for (const path of ["/console", "/console/", "/console/js/missing.js"]) {
      const res = await call(path);
      expect(res.status, path).toBe(404);
      expect(await res.json()).toEqual({ detail: "Not found" });
    }
  });

  it("opens nothing else: look-alike paths and the API still need a key", async () => {
    for (const path of ["/consoles", "/console-api", "/datasets", "/api-keys", "/jobs?x=/console/"]) {
      expect((await call(path)).status, path).toBe(401);
    }
  });
});
