import { describe, expect, it } from "vitest";
import { call, json, newOrg } from "./helpers";
import { inferForm, readyDataset } from "./model-helpers";

const MB = 1024 * 1024;
const UNKNOWN_MODEL = "00000000-0000-4000-8000-000000000000";

describe("413: each route names its own limit", () => {
  it("inference refuses a body declared above 30 MB with its own message, not the upload flow", async () => {
    const org = await newOrg();
    const r = await json(`/models/${UNKNOWN_MODEL}/infer`, org, {
      method: "POST",
      headers: { "Content-Type": "multipart/form-data; boundary=x", "Content-Length": String(40 * MB) },
      body: "--x--\r\n",
    });
    expect(r.status).toBe(413);
    expect(r.body.detail).toMatch(/30 MB limit of an inference upload/);
    expect(r.body.detail).not.toMatch(/signed-URL|upload_url/);
  });

  it("inference refuses a real file just over 30 MB the same way", async () => {
    const org = await newOrg();
    const big = new Uint8Array(30 * MB + 1).fill(65);
    const r = await json(`/models/${UNKNOWN_MODEL}/infer`, org, { method: "POST", body: inferForm(big) });
    expect(r.status).toBe(413);
    expect(r.body.detail).toMatch(/inference upload/);
  });

  it("a JSON route answers 422 for malformed JSON even without a JSON Content-Type", async () => {
    const org = await newOrg();
    const r = await json("/models/train", org, { method: "POST", body: "{not json" });
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ loc: ["body", 0], type: "json_invalid" });
  });

  it("a JSON body sent without a Content-Type is still read as JSON", async () => {
    const org = await newOrg();
    const r = await json("/models/train", org, { method: "POST", body: JSON.stringify({ model_name: "m", model_type: "nonsense" }) });
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ loc: ["body", "model_type"], type: "enum", input: "nonsense" });
  });

  it("a wrong value inside params is reported at its key, with the value given", async () => {
    const org = await newOrg();
    const ds = await readyDataset(org);
    const r = await json("/models/train", org, {
      method: "POST",
      body: { model_name: "m", model_type: "prediction", dataset_id: ds.id, label_column: "churned", params: { learning_rate: "fast" } },
    });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([expect.objectContaining({ loc: ["body", "params", "learning_rate"], type: "number_type", input: "fast" })]);
    expect(r.body.detail[0].msg).not.toBe("Field required");
  });
});

describe("the order of checks", () => {
  it("explain answers 404 for an unknown job before looking at the body", async () => {
    const org = await newOrg();
    const unknown = `/jobs/${UNKNOWN_MODEL}/explain`;
    for (const body of ["", "{not json", JSON.stringify({ ids: [] })]) {
      const r = await json(unknown, org, { method: "POST", headers: { "Content-Type": "application/json" }, body });
      expect(r.status, body).toBe(404);
    }
  });

  it("a malformed multipart body is a 400 with the service's own message", async () => {
    const org = await newOrg();
    const r = await json("/datasets", org, {
      method: "POST",
      headers: { "Content-Type": "multipart/form-data; boundary=zzz" },
      body: "not multipart",
    });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ detail: "Malformed multipart body." });
  });

  it("a signed PUT with a forged token is refused (403) before its missing Content-Length would be (411)", async () => {
    const res = await call("/uploads/bm90LWEtdG9rZW4.c2ln", {
      method: "PUT",
      headers: { "Content-Type": "text/csv" },
      body: new ReadableStream({ start: (c) => c.close() }),
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(403);
  });
});

describe("previews", () => {
  it("of a dataset without a ready version say so", async () => {
    const org = await newOrg();
    const p = await json("/datasets/upload", org, {
      method: "POST",
      body: { dataset_name: "waiting", file: { filename: "a.csv", bytes: 10, content_type: "text/csv" } },
    });
    const r = await json(`/datasets/${p.body.dataset.id}/preview`, org);
    expect(r.status).toBe(409);
    expect(r.body.detail).toBe("The dataset has no ready version yet: wait for its ingest job to succeed.");
  });
});
