import { availableParallelism } from "node:os";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { SHARED_SERVICE_FILES } from "./test/e2e/service";

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

/**
 * `npm run test:quick` (TEST_QUICK=1) leaves out the files that take more than ~2 s each on a 2-core
 * machine (measured 2026-11-29 with vitest's JSON reporter); `npm test` runs everything.
 */
const slowTestFiles = Object.entries({
  ml: "causal-select causal search-space prediction-search prediction-representation prediction-search-fan-out prediction ssl-encoder representation-sample representation causal-estimate embedding gbdt-threads explain-prediction gbdt-schedule",
  ingest: "typed-numbers parquet-stream ascii-bytes span-batch codec-encodings parquet-pages csv-tokenizer streamed-frame portable-compressors",
  training: "frame-stream-thread run-training control-client-frame trainer-ingest-failure",
  worker:
    "models-cancel-retry bad-input-files models-causal request-rules ort-runtime contract-conventions internal-ingest-faults concurrency jobs-explain datasets bad-files rate-limit models-infer-async models-retrain signed-upload models-unsupervised request-log",
}).flatMap(([folder, names]) => names.split(" ").map((name) => `test/${folder}/${name}.test.ts`));
const quick = process.env.TEST_QUICK === "1";
const skippedWhenQuick = quick ? slowTestFiles : [];

const sharedServiceTests = SHARED_SERVICE_FILES.map((name) => `test/e2e/${name}.test.ts`);

/** Tests that need an isolate nothing has run in yet (cold starts): each file gets a fresh one. */
const coldIsolateTests = ["test/worker/ort-warmup.test.ts"];

// The projects: the Worker (API, Durable Objects, queues) runs inside workerd with the real local
// bindings; the engine and the file readers are plain TypeScript and run in Node; the end-to-end
// tests start the service as a user would.
export default defineConfig({
  test: {
    // One test worker more than the cores. The end-to-end files come first and mostly wait on their
    // service, which used ~1.2 of 2 cores meanwhile: a third worker fills the rest with the engine's
    // tests. Measured on a fresh clone of 2 cores, each run given CPU priority over the machine's
    // other work (2026-11-29): 2 workers 431 s, 3 workers 367 s, 4 workers 419 s (more services and
    // workerd instances at once). With one service per end-to-end file (before the shared one), 3
    // and 4 had made a start-up miss its 120 s deadline.
    maxWorkers: availableParallelism() + 1,
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
            "test/equal-arrays.test.ts",
          ],
          exclude: skippedWhenQuick,
          environment: "node",
          setupFiles: ["./test/equal-arrays.ts"],
          // Files share the module cache (each file importing the engine again cost seconds).
          isolate: false,
          // set-up hooks train models too: under load they take as long as tests
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        // Talk HTTP to the service started like a user starts it (`npm start`): one service for
        // these files (each with its own organization), started by the global set-up.
        test: {
          name: "e2e",
          include: sharedServiceTests,
          globalSetup: ["./test/e2e/shared-service.ts"],
          environment: "node",
          testTimeout: 300_000,
          // a service start may take SERVICE_START_MS (test/e2e/service.ts)
          hookTimeout: 300_000,
        },
      },
      {
        // The end-to-end files that start services of their own: other trainer settings, a
        // trainer killed or stopped, the same state served again.
        test: {
          name: "e2e-own-service",
          include: ["test/e2e/**/*.test.ts"],
          exclude: sharedServiceTests,
          environment: "node",
          testTimeout: 300_000,
          // a service start may take SERVICE_START_MS (test/e2e/service.ts)
          hookTimeout: 300_000,
        },
      },
      {
        // One workerd (per test worker) for all the files: starting one per file cost ~15 s of set-up
        // each, more than the tests. Files share storage and module state, so tests use unique ids.
        plugins: [workerPool()],
        test: {
          name: "workers",
          include: ["test/worker/**/*.test.ts"],
          exclude: [...coldIsolateTests, ...skippedWhenQuick],
          isolate: false,
          setupFiles: ["./test/worker/setup.ts"],
          testTimeout: 60_000,
        },
      },
      {
        plugins: [workerPool()],
        test: {
          // Named to sort first: vitest runs the projects' files in the order of their names, and
          // this one file's workerd start-up (~15 s) last was a tail with nothing else to run.
          name: "cold-workers",
          include: coldIsolateTests,
          setupFiles: ["./test/worker/setup.ts"],
          testTimeout: 60_000,
        },
      },
    ],
  },
});
