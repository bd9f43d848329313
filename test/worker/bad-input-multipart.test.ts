/**
 * Bad-input corpus, multipart: broken envelopes and wrong parts on every multipart route (direct
 * upload, sync and async inference, causal effect estimate). No 5xx, a `detail`, a short body.
 */
import { afterAll, beforeAll, describe, it } from "vitest";
import { expectHandled, expectNoJobLeftUnfinished } from "./bad-input-helpers";
import { newOrg, type TestOrg } from "./helpers";
import { readyDataset, trainAndWait } from "./model-helpers";

const CSV = "usage,plan\n1,basic\n";
const part = (name: string, value: string, filename?: string) =>
  `--b\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"` : ""}\r\n${filename ? "Content-Type: text/csv\r\n" : ""}\r\n${value}\r\n`;

/** [what, Content-Type, body] */
const ENVELOPES: Array<[string, string, () => BodyInit]> = [
  ["no boundary", "multipart/form-data", () => `${part("file", CSV, "a.csv")}--b--\r\n`],
  ["a boundary that does not occur", "multipart/form-data; boundary=zzz", () => `${part("file", CSV, "a.csv")}--b--\r\n`],
  ["no closing boundary", "multipart/form-data; boundary=b", () => part("file", CSV, "a.csv")],
  ["an empty body", "multipart/form-data; boundary=b", () => ""],
  ["only the closing boundary", "multipart/form-data; boundary=b", () => "--b--\r\n"],
  ["no file part", "multipart/form-data; boundary=b", () => `${part("dataset_name", "x")}--b--\r\n`],
  ["file sent as a plain field", "multipart/form-data; boundary=b", () => `${part("file", CSV)}${part("dataset_name", "x")}--b--\r\n`],
  [
    "two file parts",
    "multipart/form-data; boundary=b",
    () => `${part("file", CSV, "a.csv")}${part("file", CSV, "b.csv")}${part("dataset_name", "x")}--b--\r\n`,
  ],
  [
    "two name fields",
    "multipart/form-data; boundary=b",
    () => `${part("file", CSV, "a.csv")}${part("dataset_name", "x")}${part("dataset_name", "y")}--b--\r\n`,
  ],
  ["an empty file part", "multipart/form-data; boundary=b", () => `${part("file", "", "a.csv")}${part("dataset_name", "x")}--b--\r\n`],
  [
    "a file part without a filename",
    "multipart/form-data; boundary=b",
    () => `--b\r\nContent-Disposition: form-data; name="file"; filename=""\r\n\r\n${CSV}\r\n--b--\r\n`,
  ],
  ["a part without Content-Disposition", "multipart/form-data; boundary=b", () => `--b\r\nContent-Type: text/csv\r\n\r\n${CSV}\r\n--b--\r\n`],
  ["a 300 KB field", "multipart/form-data; boundary=b", () => `${part("file", CSV, "a.csv")}${part("dataset_name", "n".repeat(300_000))}--b--\r\n`],
  [
    "unknown fields",
    "multipart/form-data; boundary=b",
    () => `${part("file", CSV, "a.csv")}${part("dataset_name", "x")}${part("evil", "1")}--b--\r\n`,
  ],
  ["a bad output_type", "multipart/form-data; boundary=b", () => `${part("file", CSV, "a.csv")}${part("output_type", "xml")}--b--\r\n`],
  ["a bad model_version_id", "multipart/form-data; boundary=b", () => `${part("file", CSV, "a.csv")}${part("model_version_id", "%00")}--b--\r\n`],
  ["a malformed dataset_id", "multipart/form-data; boundary=b", () => `${part("file", CSV, "a.csv")}${part("dataset_id", "not-a-uuid")}--b--\r\n`],
  [
    "an unknown dataset_id",
    "multipart/form-data; boundary=b",
    () => `${part("file", CSV, "a.csv")}${part("dataset_id", crypto.randomUUID())}--b--\r\n`,
  ],
  [
    "a filename with CR/LF",
    "multipart/form-data; boundary=b",
    () => `${part("file", CSV, "a\r\nX-Evil: 1.csv")}${part("dataset_name", "x")}--b--\r\n`,
  ],
  [
    "a 100 KB file name",
    "multipart/form-data; boundary=b",
    () => `${part("file", CSV, `${"n".repeat(100_000)}.xyz`)}${part("dataset_name", "x")}--b--\r\n`,
  ],
  [
    "a 100 KB file name of a known type",
    "multipart/form-data; boundary=b",
    () => `${part("file", "", `${"n".repeat(100_000)}.csv`)}${part("dataset_name", "x")}--b--\r\n`,
  ],
  [
    "a nested multipart",
    "multipart/form-data; boundary=b",
    () =>
      `--b\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\nContent-Type: multipart/mixed; boundary=c\r\n\r\n--c\r\n\r\n${CSV}\r\n--c--\r\n\r\n--b--\r\n`,
  ],
  ["JSON sent to a multipart-only route", "application/json", () => JSON.stringify({ file: CSV, dataset_name: "x" })],
  ["text/csv sent as the body", "text/csv", () => CSV],
  ["no Content-Type", "", () => CSV],
];

let org: TestOrg;
let routes: string[];

beforeAll(async () => {
  org = await newOrg();
  const ds = await readyDataset(org);
  const { started } = await trainAndWait(org, { dataset_id: ds.id, label_column: "churned", params: { max_rounds: 5 } });
  const m = started.model.id;
  routes = ["/datasets", `/models/${m}/infer`, `/models/${m}/infer-async`, `/models/${m}/estimate-causal-effect`];
}, 60_000);

afterAll(async () => {
  await expectNoJobLeftUnfinished(org);
}, 60_000);

describe.each(ENVELOPES)("%s", (_what, type, body) => {
  it.each([0, 1, 2, 3])("on multipart route #%i", async (i) => {
    await expectHandled(org, { path: routes[i], headers: type ? { "Content-Type": type } : {}, body: body() });
  });
});
