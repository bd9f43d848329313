import { availableParallelism } from "node:os";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

const migrations = await readD1Migrations("./migrations");

// The Worker's tests run in workerd with the real local bindings; training runs in the Worker there.
const workerPool = () =>
  cloudflareTest({
    main: "./src/index.ts",
    wrangler: { configPath: "./wrangler.toml" },
    miniflare: {
      bindings: {
        TEST_MIGRATIONS: migrations,
        INTERNAL_SECRET: "test-internal-secret",
        SIGNING_SECRET: "test-signing-secret",
        // No containers in the pool: training runs in the Worker, with the same runner.
        TRAINER_MODE: "inline",
      },
    },
  });

/** Tests that need an isolate nothing has run in yet (cold starts): each file gets a fresh one. */
const coldIsolateTests = ["test/worker/ort-warmup.test.ts"];

// The projects: the Worker (API, Durable Objects, queues) runs inside workerd with the real local
// bindings; the engine and the file readers are plain TypeScript and run in Node; the end-to-end
// tests start the service as a user would.
export default defineConfig({
  test: {
    // vitest's default leaves a core idle (cores - 1): on a 2-core machine that halves the suite's speed.
    maxWorkers: availableParallelism(),
    projects: [
      {
        test: {
          name: "node",
          include: [
            "test/core/**/*.test.ts",
            "test/ml/**/*.test.ts",
            "test/ingest/**/*.test.ts",
            "test/training/**/*.test.ts",
            "test/model-types/**/*.test.ts",
            "test/sdk/**/*.test.ts",
          ],
          environment: "node",
          // Files share the module cache (each file importing the engine again cost seconds).
          isolate: false,
          testTimeout: 120_000,
        },
      },
      {
        // Starts the service like a user (`npm start`) and talks HTTP to it.
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          environment: "node",
          testTimeout: 300_000,
          hookTimeout: 180_000,
        },
      },
      {
        // One workerd (per test worker) for all the files: starting one per file cost ~15 s of set-up
        // each, more than the tests. Files share storage and module state, so tests use unique ids.
        plugins: [workerPool()],
        test: {
          name: "workers",
          include: ["test/worker/**/*.test.ts"],
          exclude: coldIsolateTests,
          isolate: false,
          setupFiles: ["./test/worker/setup.ts"],
          testTimeout: 60_000,
        },
      },
      {
        plugins: [workerPool()],
        test: {
          name: "workers-cold",
          include: coldIsolateTests,
          setupFiles: ["./test/worker/setup.ts"],
          testTimeout: 60_000,
        },
      },
    ],
  },
});
