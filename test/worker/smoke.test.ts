import { describe, expect, it } from "vitest";
import { json, newOrg, SMALL_CSV, upload, waitForJob } from "./helpers";

describe("upload and ingest", () => {
  it("ingests a CSV through the queue into a ready dataset version", async () => {
    const org = await newOrg();
    const created = await upload(org, SMALL_CSV);
    expect(created.status).toBe("queued");
    const job = await waitForJob(org, created.job_id);
    expect(job.error_message).toBeNull();
    expect(job.status).toBe("succeeded");
    const detail = await json(`/datasets/${created.dataset.id}`, org);
    expect(detail.body.current_version).toEqual({ version_number: 1, status: "ready", row_count: 4, column_count: 4 });
  });
});
