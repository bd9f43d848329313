import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

const migrations = await readD1Migrations("./migrations");

// Two projects: the Worker (API, Durable Objects, queues) runs inside workerd with the real local
// bindings; the engine and the file readers are plain TypeScript and run in Node.
export default defineConfig({
  test: {
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
        plugins: [
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
          }),
        ],
        test: {
          name: "workers",
          include: ["test/worker/**/*.test.ts"],
          setupFiles: ["./test/worker/setup.ts"],
          testTimeout: 60_000,
        },
      },
    ],
  },
});
