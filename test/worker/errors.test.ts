import { describe, expect, it } from "vitest";
import { csvForm, expect422, fileForm, json, newOrg, SMALL_CSV } from "./helpers";

const MB = 1024 * 1024;

describe("404 Not found", () => {
  it("answers an unknown route with 404 Not found", async () => {
    const org = await newOrg();
    const r = await json("/no/such/route", org);
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ detail: "Not found" });
  });

  it.each([
    ["GET", "/datasets/00000000-0000-4000-8000-000000000000"],
    ["GET", "/datasets/not-a-uuid"],
    ["GET", "/datasets/00000000-0000-4000-8000-000000000000/versions"],
    ["GET", "/datasets/00000000-0000-4000-8000-000000000000/preview"],
    ["GET", "/datasets/00000000-0000-4000-8000-000000000000/models"],
    ["DELETE", "/datasets/00000000-0000-4000-8000-000000000000"],
    ["DELETE", "/datasets/00000000-0000-4000-8000-000000000000/versions/00000000-0000-4000-8000-000000000001"],
    ["POST", "/datasets/00000000-0000-4000-8000-000000000000/complete"],
    ["POST", "/api/datasets/00000000-0000-4000-8000-000000000000/complete"],
    ["GET", "/jobs/00000000-0000-4000-8000-000000000000"],
    ["GET", "/jobs/job_00000000000040008000000000000000"],
    ["GET", "/jobs/not-a-job-id"],
    ["POST", "/jobs/00000000-0000-4000-8000-000000000000/cancel"],
    ["POST", "/jobs/00000000-0000-4000-8000-000000000000/retry"],
  ])("%s %s answers 404 Not found", async (method, path) => {
    const org = await newOrg();
    const r = await json(path, org, { method });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ detail: "Not found" });
  });

  it("answers 404 for lookup and explain on unknown ids even with a valid body", async () => {
    const org = await newOrg();
    const a = await json("/datasets/00000000-0000-4000-8000-000000000000/rows/lookup", org, { method: "POST", body: { ids: [0] } });
    const b = await json("/jobs/00000000-0000-4000-8000-000000000000/explain", org, { method: "POST", body: { ids: [0] } });
    expect([a.status, b.status]).toEqual([404, 404]);
    expect(a.body).toEqual({ detail: "Not found" });
    expect(b.body).toEqual({ detail: "Not found" });
  });
});

describe("405 Method Not Allowed", () => {
  it.each([
    ["PUT", "/datasets", ["GET", "POST"]],
    ["PATCH", "/datasets/00000000-0000-4000-8000-000000000000", ["DELETE", "GET"]],
    ["DELETE", "/jobs", ["GET"]],
    ["GET", "/jobs/00000000-0000-4000-8000-000000000000/cancel", ["POST"]],
    ["GET", "/datasets/00000000-0000-4000-8000-000000000000/rows/lookup", ["POST"]],
  ])("%s %s answers 405 with Allow", async (method, path, allowed) => {
    const org = await newOrg();
    const r = await json(path, org, { method });
    expect(r.status).toBe(405);
    const allow = (r.res.headers.get("Allow") ?? "")
      .split(",")
      .map((s) => s.trim())
      .sort();
    expect(allow).toEqual(allowed);
    expect(typeof r.body.detail).toBe("string");
  });
});

describe("trailing slashes", () => {
  it.each([
    ["GET", "/datasets/"],
    ["POST", "/datasets/"],
    ["GET", "/jobs/"],
  ])("%s %s is an unknown route (404), not a 405 that allows the method itself", async (method, path) => {
    const org = await newOrg();
    const r = await json(path, org, { method });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ detail: "Not found" });
  });
});

describe("413 Payload Too Large", () => {
  it("refuses a body declared above 30 MB by Content-Length, naming the signed-URL flow", async () => {
    const org = await newOrg();
    const r = await json("/datasets", org, {
      method: "POST",
      headers: { "Content-Type": "multipart/form-data; boundary=x", "Content-Length": String(40 * MB) },
      body: "--x--\r\n",
    });
    expect(r.status).toBe(413);
    expect(r.body.detail).toMatch(/30 MB/);
    expect(r.body.detail).toMatch(/POST \/datasets\/upload/);
    expect(r.body.detail).toMatch(/upload_url/);
    expect(r.body.detail).toMatch(/\/complete/);
  });

  it("refuses a real 31 MB file", async () => {
    const org = await newOrg();
    const r = await json("/datasets", org, { method: "POST", body: fileForm(new Uint8Array(31 * MB).fill(65), "big.csv", "text/csv") });
    expect(r.status).toBe(413);
    expect(r.body.detail).toMatch(/signed-URL flow/);
  });

  it("refuses a file just over 30 MB that fits in the multipart allowance", async () => {
    const org = await newOrg();
    const r = await json("/datasets", org, { method: "POST", body: fileForm(new Uint8Array(30 * MB + 1).fill(65), "big.csv", "text/csv") });
    expect(r.status).toBe(413);
    expect(r.body.detail).toMatch(/POST \/datasets\/upload/);
  });
});

describe("415 Unsupported Media Type", () => {
  const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  const ZIP = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 20, 0, 0, 0, 8, 0, 1, 2, 3, 4]);

  it.each([
    ["a PNG", PNG, "picture.png", "image/png"],
    ["a PNG renamed .csv", PNG, "picture.csv", "text/csv"],
    ["a zip", ZIP, "data.zip", "application/zip"],
    ["binary garbage named .csv", new Uint8Array([0, 1, 2, 3, 0, 5, 6, 7, 8, 9]), "data.csv", "text/csv"],
  ])("answers 415 for %s", async (_what, bytes, filename, type) => {
    const org = await newOrg();
    const r = await json("/datasets", org, { method: "POST", body: fileForm(bytes, filename, type) });
    expect(r.status).toBe(415);
    expect(r.body.detail).toMatch(/CSV|Parquet/);
  });

  it("answers 415 for a JSON body on POST /datasets", async () => {
    const org = await newOrg();
    const r = await json("/datasets", org, { method: "POST", body: { dataset_name: "x", file: "a,b\n1,2\n" } });
    expect(r.status).toBe(415);
    expect(r.body.detail).toMatch(/multipart\/form-data/);
  });

  it("answers 415 when preparing a signed upload of a PNG", async () => {
    const org = await newOrg();
    const r = await json("/datasets/upload", org, {
      method: "POST",
      body: { dataset_name: "x", file: { filename: "picture.png", bytes: 100, content_type: "image/png" } },
    });
    expect(r.status).toBe(415);
  });
});

describe("422 validation in the pydantic shape", () => {
  it("POST /datasets without dataset_name", async () => {
    const org = await newOrg();
    const form = new FormData();
    form.append("file", new File([SMALL_CSV], "d.csv", { type: "text/csv" }));
    const [item] = expect422(await json("/datasets", org, { method: "POST", body: form }));
    expect(item).toMatchObject({ loc: ["body", "dataset_name"], type: "missing" });
  });

  it("POST /datasets without a file", async () => {
    const org = await newOrg();
    const form = new FormData();
    form.append("dataset_name", "no file");
    const [item] = expect422(await json("/datasets", org, { method: "POST", body: form }));
    expect(item).toMatchObject({ loc: ["body", "file"], type: "missing" });
  });

  it("POST /datasets with file sent as a plain text field", async () => {
    const org = await newOrg();
    const form = new FormData();
    form.append("dataset_name", "text file");
    form.append("file", SMALL_CSV);
    const [item] = expect422(await json("/datasets", org, { method: "POST", body: form }));
    expect(item.loc).toEqual(["body", "file"]);
  });

  it("POST /datasets with a dataset_id that is not a UUID", async () => {
    const org = await newOrg();
    const [item] = expect422(await json("/datasets", org, { method: "POST", body: csvForm(SMALL_CSV, { dataset_id: "nope" }) }));
    expect(item).toMatchObject({ loc: ["body", "dataset_id"], input: "nope" });
  });

  it("invalid JSON body", async () => {
    const org = await newOrg();
    const [item] = expect422(
      await json("/datasets/upload", org, { method: "POST", headers: { "Content-Type": "application/json" }, body: '{"dataset_name": "x",' }),
    );
    expect(item.loc[0]).toBe("body");
    expect(item.type).toBe("json_invalid");
  });

  it("empty JSON body", async () => {
    const org = await newOrg();
    const [item] = expect422(await json("/datasets/upload", org, { method: "POST", headers: { "Content-Type": "application/json" }, body: "" }));
    expect(item).toMatchObject({ loc: ["body"], type: "missing" });
  });

  it("wrong types: bytes as a string, ids as objects", async () => {
    const org = await newOrg();
    const a = expect422(
      await json("/datasets/upload", org, {
        method: "POST",
        body: { dataset_name: "x", file: { filename: "d.csv", bytes: "12", content_type: "text/csv" } },
      }),
    );
    expect(a[0]).toMatchObject({ loc: ["body", "file", "bytes"], input: "12" });
    const b = expect422(await json("/datasets/00000000-0000-4000-8000-000000000000/rows/lookup", org, { method: "POST", body: { ids: [{ x: 1 }] } }));
    expect(b[0].loc.slice(0, 3)).toEqual(["body", "ids", 0]);
  });

  it.each([
    ["/datasets?limit=0", "greater_than_equal", { min: 1 }],
    ["/datasets?limit=201", "less_than_equal", { max: 200 }],
    ["/jobs?limit=0", "greater_than_equal", { min: 1 }],
    ["/jobs?limit=201", "less_than_equal", { max: 200 }],
  ])("%s", async (path, type, ctx) => {
    const org = await newOrg();
    const [item] = expect422(await json(path, org));
    expect(item).toMatchObject({ loc: ["query", "limit"], type, ctx });
  });

  it("limit that is not a number", async () => {
    const org = await newOrg();
    const [item] = expect422(await json("/datasets?limit=lots", org));
    expect(item.loc).toEqual(["query", "limit"]);
  });

  it.each(["/datasets?cursor=garbage", "/jobs?cursor=garbage", `/datasets?cursor=${btoa("[1,2]")}`, `/jobs?cursor=${btoa("{}")}`])(
    "bad cursor %s",
    async (path) => {
      const org = await newOrg();
      const [item] = expect422(await json(path, org));
      expect(item.loc).toEqual(["query", "cursor"]);
    },
  );

  it.each([
    ["/datasets/00000000-0000-4000-8000-000000000000/preview?limit=0", ["query", "limit"]],
    ["/datasets/00000000-0000-4000-8000-000000000000/preview?limit=501", ["query", "limit"]],
    ["/datasets/00000000-0000-4000-8000-000000000000/preview?dataset_version_id=v1", ["query", "dataset_version_id"]],
  ])("preview query %s", async (path, loc) => {
    const org = await newOrg();
    const [item] = expect422(await json(path, org));
    expect(item.loc).toEqual(loc);
  });

  it.each<[string, unknown, (string | number)[]]>([
    ["no ids", {}, ["body", "ids"]],
    ["empty ids", { ids: [] }, ["body", "ids"]],
    ["501 ids", { ids: Array.from({ length: 501 }, (_, i) => i) }, ["body", "ids"]],
    ["an empty string id", { ids: [""] }, ["body", "ids", 0]],
  ])("rows lookup with %s", async (_what, body, loc) => {
    const org = await newOrg();
    const items = expect422(await json("/datasets/00000000-0000-4000-8000-000000000000/rows/lookup", org, { method: "POST", body: body as any }));
    expect(items.map((i) => i.loc.slice(0, loc.length))).toContainEqual(loc);
  });

  it("explain with invalid JSON", async () => {
    const org = await newOrg();
    const p = await json("/datasets/upload", org, {
      method: "POST",
      body: { dataset_name: "x", file: { filename: "d.csv", bytes: 5, content_type: "text/csv" } },
    });
    const [item] = expect422(
      await json(`/jobs/${p.body.job_id}/explain`, org, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{ids: [1]}" }),
    );
    expect(item.type).toBe("json_invalid");
  });

  it("an unknown job type or status filter", async () => {
    const org = await newOrg();
    const [t] = expect422(await json("/jobs?type=nonsense", org));
    expect(t).toMatchObject({ loc: ["query", "type"], type: "enum", input: "nonsense" });
    const [s] = expect422(await json("/jobs?status=done", org));
    expect(s.loc).toEqual(["query", "status"]);
  });
});

describe("400 on a malformed multipart body", () => {
  it("never answers 500", async () => {
    const org = await newOrg();
    const r = await json("/datasets", org, {
      method: "POST",
      headers: { "Content-Type": "multipart/form-data; boundary=zzz" },
      body: "this is not multipart at all",
    });
    expect([400, 422]).toContain(r.status);
    expect(typeof r.body.detail === "string" || Array.isArray(r.body.detail)).toBe(true);
  });
});
