import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { csvForm, expect422, fileForm, ingest, json, newOrg, prepareSigned, SIMPLE_PARQUET, SMALL_CSV, upload, waitForJob } from "./helpers";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe("POST /datasets", () => {
  it("creates a dataset from a CSV and ingests it", async () => {
    const org = await newOrg();
    const created = await upload(org, SMALL_CSV, { dataset_name: "churn" });
    expect(created).toMatchObject({ dataset: { version_number: 1 }, status: "queued" });
    expect(created.dataset.id).toMatch(UUID);
    expect(created.dataset.version_id).toMatch(UUID);
    const job = await waitForJob(org, created.job_id);
    expect(job.status).toBe("succeeded");
    const d = await json(`/datasets/${created.dataset.id}`, org);
    expect(d.body).toMatchObject({
      dataset_id: created.dataset.id,
      name: "churn",
      current_version: { version_number: 1, status: "ready", row_count: 4, column_count: 4 },
    });
  });

  it("creates a dataset from a Parquet file", async () => {
    const org = await newOrg();
    const r = await json("/datasets", org, {
      method: "POST",
      body: fileForm(SIMPLE_PARQUET, "simple.parquet", "application/octet-stream", { dataset_name: "pq" }),
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const job = await waitForJob(org, r.body.job_id);
    expect(job.error_message).toBeNull();
    expect(job.status).toBe("succeeded");
    const d = await json(`/datasets/${r.body.dataset.id}`, org);
    expect(d.body.current_version).toEqual({ version_number: 1, status: "ready", row_count: 3, column_count: 2 });
    expect(d.body.format).toBe("parquet");
    expect(d.body.columns.map((c: any) => c.name)).toEqual(expect.arrayContaining(["A", "B"]));
  });

  it("adds version 2 when the form names a dataset_id", async () => {
    const org = await newOrg();
    const first = await upload(org, SMALL_CSV);
    const second = await upload(org, "a,b\n1,2\n3,4\n", { dataset_id: first.dataset.id });
    expect(second.dataset).toMatchObject({ id: first.dataset.id, version_number: 2 });
    expect(second.dataset.version_id).not.toBe(first.dataset.version_id);
    await waitForJob(org, second.job_id);
    const d = await json(`/datasets/${first.dataset.id}`, org);
    expect(d.body.current_version).toMatchObject({ version_number: 2, row_count: 2, column_count: 2 });
  });

  it("honours Idempotency-Key: the same response and one dataset", async () => {
    const org = await newOrg();
    const send = () => json("/datasets", org, { method: "POST", headers: { "Idempotency-Key": "key-1" }, body: csvForm(SMALL_CSV) });
    const a = await send();
    const b = await send();
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.body).toEqual(a.body);
    const list = await json("/datasets", org);
    expect(list.body.items).toHaveLength(1);
    const jobs = await json("/jobs", org);
    expect(jobs.body.items).toHaveLength(1);
  });

  it("releases an Idempotency-Key whose request failed, so a corrected retry goes through", async () => {
    const org = await newOrg();
    const bad = await json("/datasets", org, {
      method: "POST",
      headers: { "Idempotency-Key": "k-retry" },
      body: csvForm(SMALL_CSV, { dataset_name: " " }),
    });
    expect(bad.status).toBe(422);
    const good = await json("/datasets", org, { method: "POST", headers: { "Idempotency-Key": "k-retry" }, body: csvForm(SMALL_CSV) });
    expect(good.status).toBe(201);
    expect((await json("/datasets", org)).body.items).toHaveLength(1);
  });

  it("scopes Idempotency-Key to the organization", async () => {
    const a = await newOrg();
    const b = await newOrg();
    const ra = await json("/datasets", a, { method: "POST", headers: { "Idempotency-Key": "shared" }, body: csvForm(SMALL_CSV) });
    const rb = await json("/datasets", b, { method: "POST", headers: { "Idempotency-Key": "shared" }, body: csvForm(SMALL_CSV) });
    expect(rb.status).toBe(201);
    expect(rb.body.dataset.id).not.toBe(ra.body.dataset.id);
    expect((await json(`/datasets/${rb.body.dataset.id}`, b)).status).toBe(200);
  });

  it("creates a second dataset for a different Idempotency-Key", async () => {
    const org = await newOrg();
    const a = await json("/datasets", org, { method: "POST", headers: { "Idempotency-Key": "k-a" }, body: csvForm(SMALL_CSV) });
    const b = await json("/datasets", org, { method: "POST", headers: { "Idempotency-Key": "k-b" }, body: csvForm(SMALL_CSV) });
    expect(b.body.dataset.id).not.toBe(a.body.dataset.id);
  });

  it("answers 404 for a dataset_id that does not exist", async () => {
    const org = await newOrg();
    const r = await json("/datasets", org, { method: "POST", body: csvForm(SMALL_CSV, { dataset_id: crypto.randomUUID() }) });
    expect(r.status).toBe(404);
  });
});

describe("GET /datasets", () => {
  async function makeDatasets(org: Awaited<ReturnType<typeof newOrg>>, names: string[]) {
    const ids: string[] = [];
    for (const name of names) ids.push((await prepareSigned(org, { bytes: 10 }, { dataset_name: name })).dataset.id);
    return ids;
  }

  it("lists newest first with the list item fields", async () => {
    const org = await newOrg();
    const ids = await makeDatasets(org, ["one", "two", "three"]);
    const r = await json("/datasets", org);
    expect(r.status).toBe(200);
    expect(r.body.items.map((d: any) => d.dataset_id)).toEqual([...ids].reverse());
    expect(r.body.next_cursor).toBeNull();
    const item = r.body.items[0];
    expect(Object.keys(item).sort()).toEqual(["created_at", "current_version", "dataset_id", "description", "name", "updated_at"]);
    expect(item.current_version).toEqual({ version_number: 1, status: "waiting_for_upload", row_count: 0, column_count: 0 });
  });

  it("pages with limit and cursor without overlap; next_cursor is null at the end", async () => {
    const org = await newOrg();
    const ids = await makeDatasets(org, ["d1", "d2", "d3", "d4", "d5"]);
    const seen: string[] = [];
    let cursor: string | null = null;
    const sizes: number[] = [];
    do {
      const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
      const page = await json(`/datasets?limit=2${q}`, org);
      expect(page.status).toBe(200);
      sizes.push(page.body.items.length);
      seen.push(...page.body.items.map((d: any) => d.dataset_id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(sizes).toEqual([2, 2, 1]);
    expect(seen).toEqual([...ids].reverse());
  });

  it("gives next_cursor null when the last page is exactly full", async () => {
    const org = await newOrg();
    await makeDatasets(org, ["x1", "x2"]);
    const page = await json("/datasets?limit=2", org);
    expect(page.body.items).toHaveLength(2);
    expect(page.body.next_cursor).toBeNull();
  });

  it("searches names case-insensitively by substring", async () => {
    const org = await newOrg();
    await makeDatasets(org, ["Sales Q1", "q2 SALES report", "Inventory"]);
    const r = await json("/datasets?search=sAlEs", org);
    expect(r.body.items.map((d: any) => d.name).sort()).toEqual(["Sales Q1", "q2 SALES report"]);
  });

  it("searches with a long term (up to 200 characters) without failing", async () => {
    const org = await newOrg();
    const long = `quarterly-${"x".repeat(120)}`;
    await makeDatasets(org, [`${long}-2024`, "short"]);
    const r = await json(`/datasets?search=${encodeURIComponent(long.toUpperCase())}`, org);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.items.map((d: any) => d.name)).toEqual([`${long}-2024`]);
    const max = await json(`/datasets?search=${"y".repeat(200)}`, org);
    expect(max.status).toBe(200);
    expect(max.body.items).toEqual([]);
  });

  it("answers 422 for a search term over 200 characters", async () => {
    const org = await newOrg();
    const [item] = expect422(await json(`/datasets?search=${"y".repeat(201)}`, org));
    expect(item.loc).toEqual(["query", "search"]);
  });

  it("matches LIKE wildcards in the search literally", async () => {
    const org = await newOrg();
    await makeDatasets(org, ["100% real", "1000 rows"]);
    const r = await json(`/datasets?search=${encodeURIComponent("0%")}`, org);
    expect(r.body.items.map((d: any) => d.name)).toEqual(["100% real"]);
  });
});

describe("one dataset", () => {
  it("GET /datasets/{id} carries the column profile", async () => {
    const org = await newOrg();
    const { created } = await ingest(org, SMALL_CSV);
    const d = await json(`/datasets/${created.dataset.id}`, org);
    expect(d.body.source_filename).toBe("data.csv");
    expect(d.body.size_bytes).toBe(new TextEncoder().encode(SMALL_CSV).length);
    const byName = Object.fromEntries(d.body.columns.map((c: any) => [c.name, c]));
    expect(byName.age).toMatchObject({ type: "numeric", missing_count: 0, distinct_count: 4, min: 23, max: 51 });
    expect(byName.income.missing_count).toBe(1);
    expect(byName.city).toMatchObject({ distinct_count: 3 });
  });

  it("GET /datasets/{id}/versions lists versions newest first", async () => {
    const org = await newOrg();
    const first = await upload(org, SMALL_CSV);
    const second = await upload(org, SMALL_CSV, { dataset_id: first.dataset.id });
    const r = await json(`/datasets/${first.dataset.id}/versions`, org);
    expect(r.body.items.map((v: any) => [v.version, v.dataset_version_id])).toEqual([
      [2, second.dataset.version_id],
      [1, first.dataset.version_id],
    ]);
    expect(r.body.items[0]).toMatchObject({ dataset_id: first.dataset.id, archived: false });
    expect(typeof r.body.items[0].status).toBe("string");
    expect(typeof r.body.items[0].created_at).toBe("string");
  });

  it("GET /datasets/{id}/preview returns the first rows with generated ids", async () => {
    const org = await newOrg();
    const { created } = await ingest(org, SMALL_CSV);
    const r = await json(`/datasets/${created.dataset.id}/preview?limit=2`, org);
    expect(r.status).toBe(200);
    expect(r.body.total_rows).toBe(4);
    expect(r.body.rows).toHaveLength(2);
    expect(r.body.rows[0]).toMatchObject({ id: 0, age: 34, city: "Paris" });
    expect(r.body.rows[1]).toMatchObject({ id: 1, city: "Lyon" });
  });

  it("GET /datasets/{id}/preview answers 409 while no version is ready", async () => {
    const org = await newOrg();
    const p = await prepareSigned(org, { bytes: 10 });
    const r = await json(`/datasets/${p.dataset.id}/preview`, org);
    expect(r.status).toBe(409);
    expect(r.body.detail).toMatch(/ready/);
  });

  it("POST /datasets/{id}/rows/lookup finds rows by generated id and lists the missing ones", async () => {
    const org = await newOrg();
    const { created } = await ingest(org, SMALL_CSV);
    const r = await json(`/datasets/${created.dataset.id}/rows/lookup`, org, { method: "POST", body: { ids: [3, "0", 99] } });
    expect(r.status).toBe(200);
    expect(r.body.items.map((row: any) => [row.id, row.age])).toEqual([
      [3, 51],
      [0, 34],
    ]);
    expect(r.body.missing_ids).toEqual([99]);
  });

  it("keeps a file's own id column and looks rows up by it", async () => {
    const org = await newOrg();
    const { created, job } = await ingest(org, "id,score,label\nu-17,0.5,a\nu-03,0.9,b\nu-42,0.1,a\n");
    expect(job.status).toBe("succeeded");
    const r = await json(`/datasets/${created.dataset.id}/rows/lookup`, org, { method: "POST", body: { ids: ["u-42", "u-17", "nope"] } });
    expect(r.body.items.map((row: any) => [row.id, row.score])).toEqual([
      ["u-42", 0.1],
      ["u-17", 0.5],
    ]);
    expect(r.body.missing_ids).toEqual(["nope"]);
    const d = await json(`/datasets/${created.dataset.id}`, org);
    expect(d.body.current_version.column_count).toBe(3);
  });

  it("looks rows up by a numeric id column given as numbers or strings", async () => {
    const org = await newOrg();
    const { created } = await ingest(org, "id,x\n100,a\n200,b\n300,c\n");
    const r = await json(`/datasets/${created.dataset.id}/rows/lookup`, org, { method: "POST", body: { ids: [300, "100"] } });
    expect(r.body.items.map((row: any) => row.x)).toEqual(["c", "a"]);
  });

  it("GET /datasets/{id}/models is empty for a new dataset", async () => {
    const org = await newOrg();
    const p = await prepareSigned(org, { bytes: 10 });
    const r = await json(`/datasets/${p.dataset.id}/models`, org);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ items: [], next_cursor: null });
  });
});

describe("delete and archive", () => {
  it("DELETE /datasets/{id} answers 204, then 404, and removes its R2 objects", async () => {
    const org = await newOrg();
    const { created } = await ingest(org, SMALL_CSV);
    const prefix = `orgs/${org.orgId}/datasets/${created.dataset.id}/`;
    expect((await env.BUCKET.list({ prefix })).objects.length).toBeGreaterThanOrEqual(2);
    const del = await json(`/datasets/${created.dataset.id}`, org, { method: "DELETE" });
    expect(del.status).toBe(204);
    expect(del.body).toBeNull();
    expect((await json(`/datasets/${created.dataset.id}`, org)).status).toBe(404);
    expect((await json(`/datasets/${created.dataset.id}/versions`, org)).status).toBe(404);
    expect((await env.BUCKET.list({ prefix })).objects).toEqual([]);
    expect((await json(`/datasets/${created.dataset.id}`, org, { method: "DELETE" })).status).toBe(404);
  });

  it("DELETE /datasets/{id} cancels an ingest job still waiting for its upload", async () => {
    const org = await newOrg();
    const p = await prepareSigned(org, { bytes: 10 });
    expect((await json(`/datasets/${p.dataset.id}`, org, { method: "DELETE" })).status).toBe(204);
    const job = await json(`/jobs/${p.job_id}`, org);
    expect(job.body.status).toBe("canceled");
  });

  it("DELETE /datasets/{id}/versions/{vid} archives the version and moves current_version back", async () => {
    const org = await newOrg();
    const first = await ingest(org, SMALL_CSV);
    const second = await ingest(org, "a,b\n1,2\n", { dataset_id: first.created.dataset.id });
    const id = first.created.dataset.id;
    const r = await json(`/datasets/${id}/versions/${second.created.dataset.version_id}`, org, { method: "DELETE" });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ dataset_version_id: second.created.dataset.version_id, archived: true });
    const d = await json(`/datasets/${id}`, org);
    expect(d.body.current_version).toMatchObject({ version_number: 1, row_count: 4 });
    const versions = await json(`/datasets/${id}/versions`, org);
    expect(versions.body.items.map((v: any) => [v.version, v.archived])).toEqual([
      [2, true],
      [1, false],
    ]);
    const job = await json(`/jobs/${second.created.job_id}`, org);
    expect(job.body.resources.dataset).toMatchObject({ version_number: 2, archived: true });
    const preview = await json(`/datasets/${id}/preview`, org);
    expect(preview.body.version_number).toBe(1);
  });

  it("answers 404 when archiving a version of another dataset", async () => {
    const org = await newOrg();
    const a = await prepareSigned(org, { bytes: 10 });
    const b = await prepareSigned(org, { bytes: 10 });
    const r = await json(`/datasets/${a.dataset.id}/versions/${b.dataset.version_id}`, org, { method: "DELETE" });
    expect(r.status).toBe(404);
  });
});
