import { describe, expect, it } from "vitest";
import { createApp, isPublic } from "../../src/api/app";
import { call, newOrg } from "./helpers";

interface Operation {
  operationId?: string;
  security?: unknown[];
  parameters?: { name: string; in: string }[];
  requestBody?: { content: Record<string, unknown> };
  responses: Record<string, { headers?: Record<string, unknown> }>;
}
type Doc = { openapi: string; info: { license?: { name: string } }; paths: Record<string, Record<string, Operation>> };

const operations = (doc: Doc) =>
  Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op })));

/** The routes the app serves, as "METHOD /path/{param}" (middleware and the internal routes left out). */
function servedRoutes(): string[] {
  const app = createApp();
  const routes = app.routes.filter((r) => r.method !== "ALL").map((r) => `${r.method} ${r.path.replace(/:([^/]+)/g, "{$1}")}`);
  return [...new Set(routes)].sort();
}

function documentedRoutes(doc: Doc): string[] {
  return Object.entries(doc.paths)
    .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
    .sort();
}

async function document(): Promise<Doc> {
  const res = await call("/openapi.json");
  expect(res.status).toBe(200);
  return res.json();
}

describe("the OpenAPI document", () => {
  it("is served without a key, as OpenAPI 3.1 with the bearer scheme", async () => {
    const doc = (await document()) as Doc & { components: { securitySchemes: Record<string, { type: string; scheme?: string }> } };
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: "http", scheme: "bearer" });
  });

  it("lists every route the app serves, and nothing else", async () => {
    const served = servedRoutes();
    expect(served.length).toBeGreaterThan(20);
    expect(documentedRoutes(await document())).toEqual(served);
  });

  it("documents the errors of the routes that need a key", async () => {
    const doc = await document();
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        if (isPublic(path.replace(/\{[^}]+\}/g, "x"))) continue;
        expect(Object.keys(op.responses), `${method} ${path}`).toEqual(expect.arrayContaining(["401", "403", "429"]));
      }
    }
    expect(Object.keys(doc.paths["/datasets"].post.responses)).toEqual(expect.arrayContaining(["201", "413", "415", "422"]));
    expect(Object.keys(doc.paths["/jobs/{job_id}/retry"].post.responses)).toEqual(expect.arrayContaining(["201", "404", "409"]));
  });

  it("names every operation with a unique operationId", async () => {
    const ids = operations(await document()).map(({ name, op }) => op.operationId ?? `(none on ${name})`);
    expect(ids.filter((id) => id.startsWith("(none"))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("documents 413 on every operation that takes a JSON body", async () => {
    const json = operations(await document()).filter(({ op }) => op.requestBody?.content["application/json"]);
    expect(json.length).toBeGreaterThan(5);
    for (const { name, op } of json) expect(Object.keys(op.responses), name).toContain("413");
  });

  it("names path parameters after what they identify, as the interface does", async () => {
    const doc = await document();
    const names = new Set(Object.keys(doc.paths).flatMap((p) => [...p.matchAll(/\{([^}]+)\}/g)].map((m) => m[1])));
    expect([...names].sort()).toEqual(["api_key_id", "dataset_id", "dataset_version_id", "job_id", "model_id", "token", "version"]);
    expect(doc.paths).toHaveProperty(["/datasets/{dataset_version_id}/complete"]);
  });

  it("declares Location on every 201 and 202, and Idempotency-Key on every operation that answers one", async () => {
    const creates = operations(await document()).filter(({ op }) => op.responses["201"] || op.responses["202"]);
    expect(creates.length).toBeGreaterThan(8);
    for (const { name, op } of creates) {
      expect(Object.keys((op.responses["201"] ?? op.responses["202"]).headers ?? {}), name).toContain("Location");
      expect(op.parameters?.map((p) => p.name) ?? [], name).toContain("idempotency-key");
    }
  });

  it("states a licence", async () => {
    expect((await document()).info.license?.name).toBeTruthy();
  });

  it("serves an interactive reference at /docs without a key", async () => {
    const res = await call("/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/text\/html/);
    expect(await res.text()).toContain("/openapi.json");
  });
});

describe("authentication is closed by default", () => {
  it("answers 401 without a key on every documented route except the public ones", async () => {
    const doc = await document();
    const checked: string[] = [];
    const publicRoutes: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      const concrete = path.replace(/\{[^}]+\}/g, "00000000-0000-4000-8000-000000000000");
      for (const method of Object.keys(ops).map((m) => m.toUpperCase())) {
        if (isPublic(concrete)) {
          publicRoutes.push(`${method} ${path}`);
          continue;
        }
        const res = await call(concrete, { method });
        expect(res.status, `${method} ${path}`).toBe(401);
        expect(res.headers.get("WWW-Authenticate")).toBe("Bearer");
        checked.push(`${method} ${path}`);
      }
    }
    expect(checked.length).toBeGreaterThan(20);
    // The public pattern list may not grow quietly: exactly these documented routes skip the key.
    expect(publicRoutes.sort()).toEqual(["GET /docs", "GET /health", "GET /openapi.json", "PUT /uploads/{token}"]);
  });

  it("treats exactly health, the document, the reference, the signed PUT and the internal routes as public", () => {
    for (const path of ["/health", "/openapi.json", "/docs", "/uploads/abc.def", "/internal/jobs/x/report"]) expect(isPublic(path), path).toBe(true);
    for (const path of ["/healthz", "/uploads", "/uploads/a/b", "/docs/x", "/a-route-added-later", "/datasets"])
      expect(isPublic(path), path).toBe(false);
  });

  it("answers 405, not 401, for another method on a public path", async () => {
    const res = await call("/health", { method: "POST" });
    expect(res.status).toBe(405);
    expect(res.headers.get("Allow")).toBe("GET");
  });

  it("answers 401 on an unknown path without a key (a new path is private until made public)", async () => {
    const res = await call("/some/future/route");
    expect(res.status).toBe(401);
  });

  it("still answers 404 on an unknown path with a key", async () => {
    const org = await newOrg();
    const res = await call("/some/future/route", { headers: org.auth });
    expect(res.status).toBe(404);
  });
});
