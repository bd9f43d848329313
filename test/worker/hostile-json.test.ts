/** Hostile JSON bodies: deep nesting, huge bodies, huge values, lying Content-Length. */
import { describe, expect, it } from "vitest";
import { call, json, newOrg } from "./helpers";

const UNKNOWN = "00000000-0000-4000-8000-000000000000";
const MB = 1024 * 1024;
const deep = (levels: number) => `{"a":${"[".repeat(levels)}${"]".repeat(levels)}}`;

describe("nesting depth", () => {
  for (const path of ["/models/train", `/models/${UNKNOWN}/retrain`, "/datasets/upload", "/api/datasets/batch", `/jobs/${UNKNOWN}/explain`]) {
    it(`10,000 levels on POST ${path} is a 422 naming the limit`, async () => {
      const org = await newOrg();
      const r = await json(path, org, { method: "POST", headers: { "Content-Type": "application/json" }, body: deep(10_000) });
      expect([404, 422]).toContain(r.status);
      if (r.status === 422) expect(r.body.detail[0]).toMatchObject({ loc: ["body"], type: "json_too_deep" });
    });
  }

  it("brackets inside strings do not count as nesting", async () => {
    const org = await newOrg();
    const r = await json("/models/train", org, { method: "POST", body: { model_name: "[".repeat(150), model_type: "nonsense" } });
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ loc: ["body", "model_type"], type: "enum" });
  });

  it("the trainer's control routes are bounded the same way", async () => {
    const r = await call(`/internal/jobs/${UNKNOWN}/report`, {
      method: "POST",
      headers: { Authorization: "Bearer test-internal-secret", "Content-Type": "application/json" },
      body: deep(5_000),
    });
    expect(r.status).toBeLessThan(500);
  });
});

describe("size", () => {
  it("a JSON body over 1 MB is a 413 that names the limit", async () => {
    const org = await newOrg();
    const r = await json("/models/train", org, { method: "POST", body: { model_name: "x".repeat(2 * MB), model_type: "prediction" } });
    expect(r.status).toBe(413);
    expect(r.body.detail).toMatch(/1 MB limit of a JSON request/);
  });

  it("a declared Content-Length over the limit is refused before the body is read", async () => {
    const org = await newOrg();
    const stream = new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode("{}   ")) }); // never closed
    const r = await call("/models/train", {
      method: "POST",
      headers: { ...org.auth, "Content-Type": "application/json", "Content-Length": String(40_000_000) },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(r.status).toBe(413);
  });

  it("a 422 echoes at most a few hundred characters of the offending value", async () => {
    const org = await newOrg();
    const r = await json("/models/train", org, { method: "POST", body: { model_name: "x".repeat(900_000), model_type: "prediction" } });
    expect(r.status).toBe(422);
    expect(JSON.stringify(r.body).length).toBeLessThan(2000);
    const item = r.body.detail.find((d: any) => d.loc[1] === "model_name");
    expect(item.input.length).toBeLessThanOrEqual(201);
  });

  it("an unknown key of 500 KB is named, cut", async () => {
    const org = await newOrg();
    const r = await json("/models/train", org, { method: "POST", body: { model_name: "m", model_type: "prediction", ["k".repeat(500_000)]: 1 } });
    expect(r.status).toBe(422);
    expect(JSON.stringify(r.body).length).toBeLessThan(3000);
  });
});

describe("many errors", () => {
  it("10,000 unknown keys are 20 items and one that counts the rest", async () => {
    const org = await newOrg();
    const body = { dataset_id: "x", ...Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i])) };
    const r = await json(`/models/${UNKNOWN}/retrain`, org, { method: "POST", body });
    expect(r.status).toBe(422);
    expect(r.body.detail).toHaveLength(21);
    expect(r.body.detail[20]).toMatchObject({ type: "too_many_errors", msg: "9980 more errors not listed" });
  });
});

describe("names from the request in errors", () => {
  it("a multipart part name of 100 KB sent twice is named, cut", async () => {
    const org = await newOrg();
    const name = "p".repeat(100_000);
    const form = new FormData();
    form.append(name, "1");
    form.append(name, "2");
    const r = await json("/datasets", org, { method: "POST", body: form });
    expect(r.status).toBe(422);
    expect(JSON.stringify(r.body).length).toBeLessThan(3000);
  });
});

describe("every JSON route reads its body through the bounded reader", () => {
  it("has jsonBody, internalJsonBody or jsonOrMultipart among its middleware", async () => {
    const { internalJsonBody, jsonBody, jsonOrMultipart } = await import("../../src/api/request-body");
    const modules = await Promise.all([
      import("../../src/api/definitions/datasets"),
      import("../../src/api/definitions/models"),
      import("../../src/api/definitions/jobs"),
      import("../../src/api/definitions/internal"),
      import("../../src/api/definitions/api-keys"),
    ]);
    const readers: unknown[] = [jsonBody, internalJsonBody, jsonOrMultipart];
    const jsonRoutes = modules.flatMap((m) => Object.values(m) as any[]).filter((r) => r?.request?.body?.content?.["application/json"]);
    expect(jsonRoutes.length).toBeGreaterThanOrEqual(10);
    for (const r of jsonRoutes)
      expect(
        r.middleware?.some((m: unknown) => readers.includes(m)),
        `${r.method} ${r.path}`,
      ).toBe(true);
  });
});
