/**
 * Bad-input corpus, JSON: every JSON route gets the same malformed bodies (broken syntax, wrong
 * shapes, deep nesting, huge values, odd encodings, wrong content types). Each is answered
 * without a 5xx, with a `detail`, briefly; no job is left unfinished.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectHandled, expectNoJobLeftUnfinished } from "./bad-input-helpers";
import { json, newOrg, type TestOrg } from "./helpers";
import { inferForm, jobEnd, readyDataset } from "./model-helpers";

const MB = 1024 * 1024;
const deep = (levels: number) => `{"a":${"[".repeat(levels)}${"]".repeat(levels)}}`;

/** [what, body, content type] */
const BODIES: Array<[string, string | Uint8Array, string]> = [
  ["empty", "", "application/json"],
  ["whitespace", "  \n\t ", "application/json"],
  ["an open brace", "{", "application/json"],
  ["truncated JSON", '{"model_name": "m", "model_ty', "application/json"],
  ["an array", "[]", "application/json"],
  ["null", "null", "application/json"],
  ["a number", "42", "application/json"],
  ["a string", '"hello"', "application/json"],
  ["true", "true", "application/json"],
  ["NaN", '{"a": NaN}', "application/json"],
  ["a trailing comma", '{"a": 1,}', "application/json"],
  ["single quotes", "{'a': 1}", "application/json"],
  ["10,000 levels of nesting", deep(10_000), "application/json"],
  ["65 levels of nesting", deep(65), "application/json"],
  ["a 2 MB string", JSON.stringify({ model_name: "y".repeat(2 * MB) }), "application/json"],
  ["a 900 KB string", JSON.stringify({ dataset_name: "y".repeat(900_000), ids: ["z".repeat(100)] }), "application/json"],
  ["a number out of range", '{"ids": [1e999999], "bytes": 1e999999}', "application/json"],
  ["__proto__", '{"__proto__": {"admin": true}, "ids": [0]}', "application/json"],
  ["constructor.prototype", '{"constructor": {"prototype": {"x": 1}}}', "application/json"],
  ["a NUL escape", '{"model_name": "\\u0000", "dataset_name": "\\u0000", "name": "\\u0000"}', "application/json"],
  ["a lone surrogate", '{"model_name": "\\ud800", "dataset_name": "\\udfff"}', "application/json"],
  ["a BOM before the JSON", "\uFEFF{}", "application/json"],
  ["invalid UTF-8", new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), "application/json"],
  ["duplicate keys", '{"ids": [0], "ids": "x"}', "application/json"],
  ["10,000 keys", JSON.stringify(Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i]))), "application/json"],
  ["an array of 200,000 numbers", `{"ids": [${"1,".repeat(200_000)}1]}`, "application/json"],
  ["ids of every type", '{"ids": [null, true, {}, [], -1, 1.5, "", "x"]}', "application/json"],
  ["JSON as text/plain", '{"a": 1}', "text/plain"],
  ["JSON as a form", "a=1&b=2", "application/x-www-form-urlencoded"],
  ["JSON as multipart without a boundary", '{"a": 1}', "multipart/form-data"],
  ["XML", "<a><b>1</b></a>", "application/xml"],
];

let org: TestOrg;
let paths: string[];

beforeAll(async () => {
  org = await newOrg();
  const ds = await readyDataset(org);
  const t = await json("/models/train", org, {
    method: "POST",
    body: { model_name: "corpus", model_type: "prediction", dataset_id: ds.id, label_column: "churned", params: { max_rounds: 5 } },
  });
  expect((await jobEnd(org, t.body.job_id)).status).toBe("succeeded");
  const model = t.body.model.id;
  const inferred = await json(`/models/${model}/infer`, org, { method: "POST", body: inferForm("usage,plan,region,spend\n10,basic,north,20\n") });
  expect(inferred.status, JSON.stringify(inferred.body)).toBe(200);
  paths = [
    "/models/train",
    `/models/${model}/retrain`,
    "/datasets/upload",
    "/api/datasets/batch",
    `/datasets/${ds.id}/rows/lookup`,
    `/jobs/${inferred.body.job_id}/explain`,
    `/models/${model}/infer-batch`,
    `/models/${model}/estimate-causal-effect`,
    "/api-keys",
  ];
}, 60_000);

afterAll(async () => {
  await expectNoJobLeftUnfinished(org);
}, 60_000);

describe.each(BODIES)("%s", (_what, body, type) => {
  it.each([0, 1, 2, 3, 4, 5, 6, 7, 8])("on JSON route #%i", async (i) => {
    await expectHandled(org, { path: paths[i], headers: { "Content-Type": type }, body });
  });
});
