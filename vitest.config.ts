import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

// Two projects: the Worker (API, Durable Objects, queues) runs inside workerd with the real local
// bindings; the engine and the file readers are plain TypeScript and run in Node.
export default defineConfig(async () => {
  const migrations = await readD1Migrations("./migrations");
  return {
    test: {
      projects: [
        {
          extends: false,
          test: {
            name: "node",
            include: ["test/ml/**/*.test.ts", "test/ingest/**/*.test.ts"],
            environment: "node",
            testTimeout: 120_000,
          },
        },
        {
          extends: false,
          plugins: [
            cloudflareTest({
              main: "./src/index.ts",
              wrangler: { configPath: "./wrangler.toml" },
              miniflare: { bindings: { TEST_MIGRATIONS: migrations, INTERNAL_SECRET: "test-internal-secret" } },
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
  };
});
