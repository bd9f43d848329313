/** Regression tests of issue 16: params errors, idempotency keys, multipart parts, upload declarations, fidelity. */
import { describe, expect, it } from "vitest";
import { csvForm, json, newOrg, SMALL_CSV, upload, waitForJob } from "./helpers";
import { inferForm, jobEnd, readyDataset } from "./model-helpers";

describe("params errors name the key", () => {
  it("an unknown key inside params is reported at that key, with the keys the model type takes", async () => {
    const org = await newOrg();
    const ds = await readyDataset(org);
    const r = await json("/models/train", org, {
      method: "POST",
      body: { model_name: "m", model_type: "prediction", dataset_id: ds.id, label_column: "churned", params: { learnin_rate: 0.1 } },
    });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([expect.objectContaining({ loc: ["body", "params", "learnin_rate"], type: "extra_forbidden", input: 0.1 })]);
    expect(r.body.detail[0].msg).toMatch(/learning_rate/);
  });

  it("an unknown top-level field is reported at its own key", async () => {
    const org = await newOrg();
    const r = await json("/models/train", org, { method: "POST", body: { model_name: "m", model_type: "prediction", colour: "red" } });
    expect(r.status).toBe(422);
    expect(r.body.detail).toContainEqual(expect.objectContaining({ loc: ["body", "colour"], type: "extra_forbidden", input: "red" }));
  });
});

describe("Idempotency-Key", () => {
  it("reused with a different body is a 422 saying so, and creates nothing", async () => {
    const org = await newOrg();
    const ds = await readyDataset(org);
    const body = { model_name: "m1", model_type: "prediction", dataset_id: ds.id, label_column: "churned" };
    const key = { "Idempotency-Key": `k-${crypto.randomUUID()}` };
    const first = await json("/models/train", org, { method: "POST", headers: key, body });
    expect(first.status).toBe(201);
    const other = await json("/models/train", org, { method: "POST", headers: key, body: { ...body, model_name: "m2" } });
    expect(other.status).toBe(422);
    expect(other.body.detail[0]).toMatchObject({ loc: ["header", "idempotency-key"], type: "idempotency_key_reused" });
    expect(other.body.detail[0].msg).toMatch(/different parameters/);
    const models = await json("/models", org);
    expect(models.body.items.map((m: any) => m.model_name)).toEqual(["m1"]);
  });

  it("reused with the same body (keys in another order) returns the first response", async () => {
    const org = await newOrg();
    const ds = await readyDataset(org);
    const key = { "Idempotency-Key": `k-${crypto.randomUUID()}` };
    const a = await json("/models/train", org, {
      method: "POST",
      headers: key,
      body: { model_name: "m", model_type: "prediction", dataset_id: ds.id, label_column: "churned" },
    });
    const b = await json("/models/train", org, {
      method: "POST",
      headers: key,
      body: { label_column: "churned", dataset_id: ds.id, model_type: "prediction", model_name: "m" },
    });
    expect(b.status).toBe(201);
    expect(b.body).toEqual(a.body);
  });

  it("a direct upload reused with another file is a 422", async () => {
    const org = await newOrg();
    const key = { "Idempotency-Key": `k-${crypto.randomUUID()}` };
    const a = await json("/datasets", org, { method: "POST", headers: key, body: csvForm(SMALL_CSV) });
    expect(a.status).toBe(201);
    const b = await json("/datasets", org, { method: "POST", headers: key, body: csvForm(`${SMALL_CSV}60,Lyon,1,no\n`) });
    expect(b.status).toBe(422);
  });
});

describe("multipart parts", () => {
  it("two file parts are refused, not one dropped", async () => {
    const org = await newOrg();
    const form = csvForm(SMALL_CSV);
    form.append("file", new File(["x,y\n1,2\n"], "b.csv", { type: "text/csv" }));
    const r = await json("/datasets", org, { method: "POST", body: form });
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ loc: ["body", "file"], type: "too_many_parts" });
    expect(r.body.detail[0].msg).toMatch(/exactly one 'file' part; this request has 2/);
  });

  it("two file parts on inference are refused too", async () => {
    const org = await newOrg();
    const form = new FormData();
    form.append("file", new File(["a\n1\n"], "a.csv", { type: "text/csv" }));
    form.append("file", new File(["a\n2\n"], "b.csv", { type: "text/csv" }));
    const r = await json("/models/00000000-0000-4000-8000-000000000000/infer", org, { method: "POST", body: form });
    expect([404, 422]).toContain(r.status);
  });
});

describe("declared file of a signed upload", () => {
  for (const [field, value] of [
    ["content_type", "text/csv\r\nX-Evil: 1"],
    ["content_type", "text/csv\nSet-Cookie: a=b"],
    ["content_type", "not a media type"],
    // many empty quoted parameters and a bad last character: a backtracking pattern took hours on it
    ["content_type", `a/b${';x=""'.repeat(39)}\u0001`],
    ["filename", "a\r\nb.csv"],
    ["filename", "a\u0000b.csv"],
  ] as const) {
    it(`${field} ${JSON.stringify(value)} is a 422`, async () => {
      const org = await newOrg();
      const file = { filename: "a.csv", bytes: 10, content_type: "text/csv", [field]: value };
      const r = await json("/datasets/upload", org, { method: "POST", body: { dataset_name: "crlf", file } });
      expect(r.status).toBe(422);
      expect(r.body.detail[0].loc).toEqual(["body", "file", field]);
    });
  }

  it("a media type with a parameter is still accepted", async () => {
    const org = await newOrg();
    for (const content_type of ["text/csv; charset=utf-8", 'text/csv; charset="utf-8"', 'text/csv; a="x\\"y"']) {
      const file = { filename: "a.csv", bytes: 10, content_type };
      expect((await json("/datasets/upload", org, { method: "POST", body: { dataset_name: "ok", file } })).status).toBe(201);
    }
  });
});

describe("data comes back as it went in", () => {
  it("preview and look-up return a yes/no column as the file spelled it; training still sees a boolean", async () => {
    const org = await newOrg();
    const up = await upload(org, SMALL_CSV, { dataset_name: "fidelity" });
    await waitForJob(org, up.job_id);
    const preview = await json(`/datasets/${up.dataset.id}/preview`, org);
    expect(preview.body.rows.map((r: any) => r.churned)).toEqual(["no", "yes", "no", "yes"]);
    expect(preview.body.columns.find((c: any) => c.name === "churned").type).toBe("boolean");
    const lookup = await json(`/datasets/${up.dataset.id}/rows/lookup`, org, { method: "POST", body: { ids: [0] } });
    expect(lookup.body.items[0]).toMatchObject({ churned: "no", city: "Paris", age: 34 });
  });

  it("a boolean column written several ways comes back row by row as written", async () => {
    const org = await newOrg();
    const up = await upload(org, "flag,x\nYes,1\nyes,2\nNO,3\n,4\nYES,5\n", { dataset_name: "spellings" });
    await waitForJob(org, up.job_id);
    const preview = await json(`/datasets/${up.dataset.id}/preview`, org);
    expect(preview.body.columns.find((c: any) => c.name === "flag").type).toBe("boolean");
    expect(preview.body.rows.map((r: any) => r.flag)).toEqual(["Yes", "yes", "NO", null, "YES"]);
    const lookup = await json(`/datasets/${up.dataset.id}/rows/lookup`, org, { method: "POST", body: { ids: [1, 4] } });
    expect(lookup.body.items.map((r: any) => r.flag)).toEqual(["yes", "YES"]);
  });

  it("a column of plain dates comes back as dates; a column with times as timestamps", async () => {
    const org = await newOrg();
    const up = await upload(org, "day,at,x\n2024-01-02,2024-01-02 10:30,1\n2024-02-29,2024-01-03T11:00:00Z,2\n", { dataset_name: "dates" });
    await waitForJob(org, up.job_id);
    const preview = await json(`/datasets/${up.dataset.id}/preview`, org);
    expect(preview.body.columns.find((c: any) => c.name === "day").type).toBe("datetime");
    expect(preview.body.rows.map((r: any) => r.day)).toEqual(["2024-01-02", "2024-02-29"]);
    expect(preview.body.rows[0].at).toBe("2024-01-02T10:30:00.000Z");
    const lookup = await json(`/datasets/${up.dataset.id}/rows/lookup`, org, { method: "POST", body: { ids: [1] } });
    expect(lookup.body.items[0].day).toBe("2024-02-29");
  });

  it("dataset detail lists the uploaded columns only, not the generated row id", async () => {
    const org = await newOrg();
    const up = await upload(org, SMALL_CSV, { dataset_name: "no-id" });
    await waitForJob(org, up.job_id);
    const d = await json(`/datasets/${up.dataset.id}`, org);
    expect(d.body.columns.map((c: any) => c.name)).toEqual(["age", "city", "income", "churned"]);
    expect(d.body.current_version.column_count).toBe(4);
  });

  it("a file's own id column is listed", async () => {
    const org = await newOrg();
    const up = await upload(org, "id,x,y\n7,1,a\n9,2,b\n", { dataset_name: "own-id" });
    await waitForJob(org, up.job_id);
    const d = await json(`/datasets/${up.dataset.id}`, org);
    expect(d.body.columns.map((c: any) => c.name)).toEqual(["id", "x", "y"]);
  });
});

describe("a bad file on a cold model", () => {
  it("does not stall the next inference (the abandoned session load used to hang every later request)", async () => {
    const org = await newOrg();
    const ds = await readyDataset(org);
    const t = await json("/models/train", org, {
      method: "POST",
      body: { model_name: "cold", model_type: "prediction", dataset_id: ds.id, label_column: "churned", params: { max_rounds: 5 } },
    });
    expect((await jobEnd(org, t.body.job_id)).status).toBe("succeeded");
    const infer = (csv: string) => json(`/models/${t.body.model.id}/infer`, org, { method: "POST", body: inferForm(csv) });
    expect((await infer("")).status).toBe(422);
    const next = await Promise.race([infer("usage,plan\n10,basic\n"), new Promise<null>((r) => setTimeout(() => r(null), 10_000))]);
    expect(next?.status).toBe(200);
  });
});
