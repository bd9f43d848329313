/**
 * Bad-input corpus, ids and query strings: malformed ids on every route that takes one, another
 * organization's ids (404, never its data, and nothing of it changed), malformed query values.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectHandled, expectNoJobLeftUnfinished } from "./bad-input-helpers";
import { json, newOrg, type TestOrg } from "./helpers";
import { inferForm, jobEnd, readyDataset } from "./model-helpers";

const MALFORMED = [
  "x",
  "%00",
  "..%2F..%2Fetc",
  "a".repeat(5000),
  `job_${"z".repeat(32)}`,
  "job_",
  "-1",
  "%20",
  "%F0%9F%98%80",
  "%E0%80",
  "null",
  "00000000-0000-0000-0000-000000000000",
];

interface Owned {
  dataset: string;
  version: string;
  model: string;
  job: string;
  inferJob: string;
}

/** [method, path of an id, body] for every route that takes an id. */
const ROUTES: Array<[string, (id: string, o: Owned) => string, () => BodyInit | undefined, keyof Owned]> = [
  ["GET", (id) => `/datasets/${id}`, () => undefined, "dataset"],
  ["DELETE", (id) => `/datasets/${id}`, () => undefined, "dataset"],
  ["GET", (id) => `/datasets/${id}/versions`, () => undefined, "dataset"],
  ["DELETE", (id, o) => `/datasets/${o.dataset}/versions/${id}`, () => undefined, "version"],
  ["GET", (id) => `/datasets/${id}/preview`, () => undefined, "dataset"],
  ["POST", (id) => `/datasets/${id}/rows/lookup`, () => JSON.stringify({ ids: [0] }), "dataset"],
  ["GET", (id) => `/datasets/${id}/models`, () => undefined, "dataset"],
  ["POST", (id) => `/datasets/${id}/complete`, () => undefined, "version"],
  ["POST", (id) => `/api/datasets/${id}/complete`, () => undefined, "version"],
  ["GET", (id) => `/models/${id}`, () => undefined, "model"],
  ["DELETE", (id) => `/models/${id}`, () => undefined, "model"],
  ["GET", (id) => `/models/${id}/versions`, () => undefined, "model"],
  ["GET", (id) => `/models/${id}/versions/1/artifact`, () => undefined, "model"],
  ["POST", (id) => `/models/${id}/infer`, () => inferForm("usage,plan\n1,basic\n"), "model"],
  ["POST", (id) => `/models/${id}/infer-async`, () => inferForm("usage,plan\n1,basic\n"), "model"],
  ["POST", (id) => `/models/${id}/infer-batch`, () => JSON.stringify({ dataset_id: "00000000-0000-4000-8000-000000000000" }), "model"],
  ["POST", (id) => `/models/${id}/estimate-causal-effect`, () => JSON.stringify({}), "model"],
  ["POST", (id) => `/models/${id}/retrain`, () => JSON.stringify({ dataset_id: "00000000-0000-4000-8000-000000000000" }), "model"],
  ["GET", (id) => `/jobs/${id}`, () => undefined, "job"],
  ["POST", (id) => `/jobs/${id}/cancel`, () => undefined, "job"],
  ["POST", (id) => `/jobs/${id}/retry`, () => undefined, "job"],
  ["POST", (id) => `/jobs/${id}/explain`, () => JSON.stringify({ ids: [0] }), "inferJob"],
  ["GET", (id) => `/jobs/${id}/results`, () => undefined, "inferJob"],
  ["DELETE", (id) => `/api-keys/${id}`, () => undefined, "job"],
];

let org: TestOrg;
let other: TestOrg;
let owned: Owned;

beforeAll(async () => {
  org = await newOrg();
  other = await newOrg("Other org");
  const ds = await readyDataset(other);
  const t = await json("/models/train", other, {
    method: "POST",
    body: { model_name: "theirs", model_type: "prediction", dataset_id: ds.id, label_column: "churned", params: { max_rounds: 5 } },
  });
  expect((await jobEnd(other, t.body.job_id)).status).toBe("succeeded");
  const inferred = await json(`/models/${t.body.model.id}/infer`, other, { method: "POST", body: inferForm("usage,plan\n10,basic\n") });
  owned = { dataset: ds.id, version: ds.version_id, model: t.body.model.id, job: t.body.job_id, inferJob: inferred.body.job_id };
}, 60_000);

afterAll(async () => {
  // Nothing of the other organization was changed by the requests made with its ids.
  expect((await json(`/datasets/${owned.dataset}`, other)).status).toBe(200);
  expect((await json(`/models/${owned.model}`, other)).status).toBe(200);
  expect((await json(`/jobs/${owned.inferJob}`, other)).body.status).toBe("succeeded");
  await expectNoJobLeftUnfinished(org);
  await expectNoJobLeftUnfinished(other);
}, 60_000);

describe.each(ROUTES)("%s %s", (method, path, body, kind) => {
  it.each(MALFORMED.map((id, i) => [i, id]))("malformed id #%i", async (_i, id) => {
    await expectHandled(org, { method, path: path(id, owned), body: body(), headers: contentType(body()) });
  });

  it("another organization's id is a 404", async () => {
    const r = await expectHandled(org, { method, path: path(owned[kind], owned), body: body(), headers: contentType(body()) });
    expect(r.status).toBe(404);
  });
});

const contentType = (body: BodyInit | undefined): Record<string, string> => (typeof body === "string" ? { "Content-Type": "application/json" } : {});

const QUERIES = [
  "/datasets?limit=-1",
  "/datasets?limit=abc",
  "/datasets?limit=1e9",
  "/datasets?cursor=garbage",
  "/datasets?cursor=%00%FF",
  `/datasets?search=${"s".repeat(5000)}`,
  "/datasets?limit=1&limit=2",
  "/models?model_type=nonsense",
  "/models?status=%0D%0A",
  "/models?cursor=eyJ4IjoxfQ",
  "/jobs?status=bogus",
  "/jobs?type=train&type=infer_sync",
  "/jobs?limit=0",
  `/jobs?parent_job_id=${"p".repeat(3000)}`,
  "/datasets/00000000-0000-4000-8000-000000000000/preview?limit=100000",
  "/jobs/00000000-0000-4000-8000-000000000000/results?format=xml&limit=-5",
];

describe("query strings", () => {
  it.each(QUERIES)("%s", async (path) => {
    await expectHandled(org, { method: "GET", path });
  });
});
