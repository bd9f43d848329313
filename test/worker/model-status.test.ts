import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import { models, modelVersions } from "../../src/db/schema";
import type { ModelVersionStatus } from "../../src/db/version-statuses";
import { currentVersion, modelStatus, modelStatusSql } from "../../src/models/status";
import { newOrg } from "./helpers";

/** Version statuses of one model, oldest first. */
const CASES: ModelVersionStatus[][] = [
  [],
  ["queued"],
  ["processing"],
  ["ready"],
  ["failed"],
  ["canceled"],
  ["ready", "queued"],
  ["ready", "processing"],
  ["ready", "canceled"],
  ["ready", "failed"],
  ["failed", "canceled", "canceled"],
  ["canceled", "ready", "canceled"],
  ["ready", "failed", "processing"],
];

describe("the model status rule", () => {
  it("gives the same status in SQL (list filters) as in TypeScript (the model detail)", async () => {
    const org = await newOrg();
    const db = createDb(env.DB);
    const now = new Date().toISOString();
    const ids: string[] = [];
    for (const statuses of CASES) {
      const id = crypto.randomUUID();
      ids.push(id);
      await db.insert(models).values({
        id,
        orgId: org.orgId,
        name: statuses.join(",") || "none",
        description: null,
        modelType: "prediction",
        labelColumn: "y",
        lastVersionNumber: statuses.length,
        createdAt: now,
        updatedAt: now,
      });
      for (const [i, status] of statuses.entries()) {
        await db.insert(modelVersions).values({
          id: crypto.randomUUID(),
          modelId: id,
          orgId: org.orgId,
          version: i + 1,
          status,
          datasetId: crypto.randomUUID(),
          datasetVersionId: crypto.randomUUID(),
          configJson: "{}",
          metricsJson: null,
          artifactKey: null,
          errorMessage: null,
          createdAt: now,
          updatedAt: now,
        });
      }
    }
    for (const [k, id] of ids.entries()) {
      const [row] = await db.select({ status: modelStatusSql() }).from(models).where(eq(models.id, id));
      const versions = CASES[k].map((status, i) => ({ status, version: i + 1 })).reverse();
      expect(row.status, CASES[k].join(",")).toBe(modelStatus(currentVersion(versions)));
    }
    // and the rule itself, on a few cases
    expect(modelStatus(currentVersion([]))).toBe("queued");
    expect(
      modelStatus(
        currentVersion([
          { status: "canceled", version: 2 },
          { status: "ready", version: 1 },
        ]),
      ),
    ).toBe("ready");
    expect(modelStatus(currentVersion([{ status: "canceled", version: 1 }]))).toBe("failed");
  });
});
