/**
 * A dataset_ingest job as the trainer finds it: a batch upload whose files are in the bucket and
 * marked uploaded, never completed (so no consumer runs it). Tests drive it with runningCopy.
 */
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { frameKey } from "../../src/storage/keys";
import { json, sha256Hex, type TestOrg } from "./helpers";

export const SECRET = { Authorization: "Bearer test-internal-secret" };

export async function preparedIngest(org: TestOrg, parts: string[]): Promise<{ job_id: string; dataset_id: string }> {
  const r = await json<any>("/api/datasets/batch", org, {
    method: "POST",
    body: {
      dataset_name: "trainer ingest",
      files: await Promise.all(
        parts.map(async (p, i) => ({ filename: `part${i}.csv`, bytes: p.length, content_type: "text/csv", checksum_sha256: await sha256Hex(p) })),
      ),
    },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  for (const [i, u] of r.body.uploads.entries()) {
    await env.BUCKET.put(u.object_name, parts[i], { httpMetadata: { contentType: "text/csv" } });
    await env.DB.prepare("UPDATE dataset_files SET status = 'uploaded' WHERE id = ?").bind(u.file_id).run();
  }
  return r.body;
}

/** Where the ingest of this dataset version stores its frame. */
export async function frameKeyOfVersion(versionId: string): Promise<string> {
  const v = await env.DB.prepare("SELECT org_id, dataset_id FROM dataset_versions WHERE id = ?")
    .bind(versionId)
    .first<{ org_id: string; dataset_id: string }>();
  return frameKey(v!.org_id, v!.dataset_id, versionId);
}
