/**
 * Bad-input corpus, generated: request bodies drawn from each JSON route's own zod schema, then
 * mutated (a field replaced by any JSON value, a field dropped, an unknown key added, the whole
 * body replaced or wrapped). Whatever fast-check finds must be answered without a 5xx, with a
 * `detail`, briefly; the params of every model type are generated the same way.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import * as datasets from "../../src/api/definitions/datasets";
import * as jobs from "../../src/api/definitions/jobs";
import * as models from "../../src/api/definitions/models";
import { expectHandled, expectNoJobLeftUnfinished } from "./bad-input-helpers";
import { json, newOrg, type TestOrg } from "./helpers";
import { inferForm, readyDataset, trainAndWait } from "./model-helpers";
import { PARAMS_BY_TYPE } from "./params-by-type";

/** zod's internal definition of a schema, walked generically. */
type Def = any;

/** An arbitrary of values of a zod schema (the kinds our request schemas use; anything else is any JSON). */
function arbitraryOf(schema: z.ZodType, depth = 0): fc.Arbitrary<unknown> {
  const def: Def = (schema as unknown as { _zod: { def: Def } })._zod.def;
  if (depth > 4) return fc.jsonValue({ maxDepth: 1 });
  switch (def.type) {
    case "object": {
      const entries = Object.entries(def.shape as Record<string, z.ZodType>);
      return fc.record(Object.fromEntries(entries.map(([k, v]) => [k, arbitraryOf(v, depth + 1)])), {
        requiredKeys: entries.filter(([, v]) => (v as Def)._zod.def.type !== "optional").map(([k]) => k),
      });
    }
    case "optional":
    case "default":
    case "nullable":
      return arbitraryOf(def.innerType, depth);
    case "pipe":
      return arbitraryOf(def.in, depth);
    case "string":
      return fc.oneof(fc.string({ maxLength: 40 }), fc.uuid(), fc.constantFrom("", "csv", "text/csv", "data.csv"));
    case "number":
      return fc.oneof(fc.integer({ min: -5, max: 5000 }), fc.double({ noNaN: true }));
    case "boolean":
      return fc.boolean();
    case "enum":
      return fc.constantFrom(...Object.values(def.entries as Record<string, string>));
    case "literal":
      return fc.constantFrom(...(def.values as unknown[]));
    case "array":
      return fc.array(arbitraryOf(def.element, depth + 1), { maxLength: 4 });
    case "tuple":
      return fc.tuple(...(def.items as z.ZodType[]).map((i) => arbitraryOf(i, depth + 1)));
    case "union":
      return fc.oneof(...(def.options as z.ZodType[]).map((o) => arbitraryOf(o, depth + 1)));
    case "record":
      return fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** A generated body, mutated one way or another (or left valid in shape). */
function mutated(schema: z.ZodType): fc.Arbitrary<unknown> {
  const base = arbitraryOf(schema);
  const anyJson = fc.jsonValue({ maxDepth: 3 });
  return fc.oneof(
    base,
    fc.tuple(base, fc.nat(), anyJson).map(([b, i, v]) => replaceField(b, i, v)),
    fc.tuple(base, fc.nat()).map(([b, i]) => replaceField(b, i, undefined)),
    fc.tuple(base, fc.string({ minLength: 1, maxLength: 20 }), anyJson).map(([b, k, v]) => ({ ...(b as object), [k]: v })),
    anyJson,
    base.map((b) => [b]),
  );
}

function replaceField(body: unknown, index: number, value: unknown): unknown {
  if (!body || typeof body !== "object" || Array.isArray(body)) return body;
  const keys = Object.keys(body);
  if (keys.length === 0) return body;
  const copy: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  const key = keys[index % keys.length];
  if (value === undefined) delete copy[key];
  else copy[key] = value;
  return copy;
}

const bodySchema = (route: { request?: { body?: { content: Record<string, { schema: unknown }> } } }) =>
  route.request!.body!.content["application/json"].schema as z.ZodType;

let org: TestOrg;
let ids: { dataset: string; model: string; inferJob: string };

beforeAll(async () => {
  org = await newOrg();
  const ds = await readyDataset(org);
  const { started } = await trainAndWait(org, { dataset_id: ds.id, label_column: "churned", params: { max_rounds: 5 } });
  const inferred = await json(`/models/${started.model.id}/infer`, org, { method: "POST", body: inferForm("usage,plan\n10,basic\n") });
  ids = { dataset: ds.id, model: started.model.id, inferJob: inferred.body.job_id };
}, 60_000);

afterAll(async () => {
  await expectNoJobLeftUnfinished(org, 60_000);
}, 90_000);

const ROUTES: Array<[string, () => string, z.ZodType]> = [
  ["POST /models/train", () => "/models/train", bodySchema(models.train)],
  ["POST /models/{id}/retrain", () => `/models/${ids.model}/retrain`, bodySchema(models.retrain)],
  ["POST /models/{id}/infer-batch", () => `/models/${ids.model}/infer-batch`, bodySchema(models.inferBatch)],
  ["POST /datasets/upload", () => "/datasets/upload", bodySchema(datasets.prepareUpload)],
  ["POST /api/datasets/batch", () => "/api/datasets/batch", bodySchema(datasets.prepareBatchUpload)],
  ["POST /datasets/{id}/rows/lookup", () => `/datasets/${ids.dataset}/rows/lookup`, bodySchema(datasets.lookupRows)],
  ["POST /jobs/{id}/explain", () => `/jobs/${ids.inferJob}/explain`, bodySchema(jobs.explainJob)],
];

describe("generated and mutated bodies", () => {
  it.each(ROUTES)("%s", async (_name, path, schema) => {
    await fc.assert(
      fc.asyncProperty(mutated(schema), async (body) => {
        await expectHandled(org, { path: path(), headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
      }),
      { numRuns: 40, seed: 16 },
    );
  });
});

describe("generated params of every model type", () => {
  it.each(Object.entries(PARAMS_BY_TYPE))("%s", async (type, schema) => {
    await fc.assert(
      fc.asyncProperty(mutated(schema), async (params) => {
        // An unknown dataset: params are judged first, and valid ones are refused for the dataset, not trained.
        const body = { model_name: "generated", model_type: type, dataset_id: crypto.randomUUID(), label_column: "churned", params };
        const r = await expectHandled(org, { path: "/models/train", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
        expect([404, 422]).toContain(r.status);
        // A params error names the exact key (unless params itself is not an object).
        const isObject = params !== null && typeof params === "object" && !Array.isArray(params);
        const atParams = r.status === 422 ? r.body.detail.filter((i: any) => i.loc[1] === "params") : [];
        if (isObject) for (const item of atParams) expect(item.loc.length, JSON.stringify(item)).toBeGreaterThanOrEqual(3);
      }),
      { numRuns: 15, seed: 16 },
    );
  });
});
