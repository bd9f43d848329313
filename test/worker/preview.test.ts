import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { json, newOrg, upload, waitForJob } from "./helpers";

const wideCsv = (rows: number) => `n,label\n${Array.from({ length: rows }, (_, i) => `${i},${i % 3 === 0 ? "a" : "b"}`).join("\n")}\n`;

describe("dataset preview", () => {
  it("answers from the stored head of the table, without reading the whole frame", async () => {
    const org = await newOrg();
    const created = await upload(org, wideCsv(600));
    await waitForJob(org, created.job_id);
    const prefix = `orgs/${org.orgId}/datasets/${created.dataset.id}/versions/${created.dataset.version_id}/`;
    expect(await env.BUCKET.head(`${prefix}preview.bin`)).not.toBeNull();
    await env.BUCKET.delete(`${prefix}frame.bin`);
    const r = await json(`/datasets/${created.dataset.id}/preview?limit=500`, org);
    expect(r.status).toBe(200);
    expect(r.body.rows).toHaveLength(500);
    expect(r.body.total_rows).toBe(600);
    expect(r.body.rows[499]).toEqual({ id: 499, n: 499, label: "b" });
  });
});
