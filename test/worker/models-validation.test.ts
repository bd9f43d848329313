import { beforeAll, describe, expect, it } from "vitest";
import { json, newOrg } from "./helpers";
import { readyDataset, startTrain } from "./model-helpers";

describe("POST /models/train validation", () => {
  let org: any;
  let ds: any;

  beforeAll(async () => {
    org = await newOrg();
    ds = await readyDataset(org);
  }, 120_000);

  it("needs exactly one of dataset_id and dataset_version_id", async () => {
    const none = await startTrain(org, { label_column: "churned" });
    expect(none.status).toBe(422);
    expect(none.body.detail[0].msg).toMatch(/exactly one of dataset_id or dataset_version_id/);
    const both = await startTrain(org, { label_column: "churned", dataset_id: ds.id, dataset_version_id: ds.version_id });
    expect(both.status).toBe(422);
  });

  it("names the columns when the label column is unknown", async () => {
    const r = await startTrain(org, { dataset_id: ds.id, label_column: "nope" });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(["body", "label_column"]);
    expect(r.body.detail[0].msg).toMatch(/"nope" is not in the dataset; its columns are: .*usage/);
  });

  it("refuses a prediction model without a label column", async () => {
    const r = await startTrain(org, { dataset_id: ds.id });
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ loc: ["body", "label_column"], type: "missing" });
  });

  it("refuses regression on a text label", async () => {
    const r = await startTrain(org, { dataset_id: ds.id, label_column: "plan", params: { task: "regression" } });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].msg).toMatch(/Regression needs a numeric label; column "plan" is categorical/);
  });

  it("refuses an id-like label as classes", async () => {
    const r = await startTrain(org, { dataset_id: ds.id, label_column: "customer" });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].msg).toMatch(/240 distinct values; classification allows at most 100 classes/);
  });

  it("refuses unknown and out-of-range params with their path", async () => {
    const r = await startTrain(org, { dataset_id: ds.id, label_column: "churned", params: { learning_rat: 0.1, num_leaves: 1 } });
    expect(r.status).toBe(422);
    const locs = r.body.detail.map((d: { loc: unknown[] }) => d.loc.join("."));
    expect(locs).toContain("body.params.num_leaves");
    expect(locs.some((l: string) => l.startsWith("body.params"))).toBe(true);
  });

  it("refuses unknown input columns and the label as an input", async () => {
    const unknown = await startTrain(org, { dataset_id: ds.id, label_column: "churned", input_columns: ["usage", "ghost"] });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail[0].msg).toMatch(/Columns not in the dataset: ghost/);
    const label = await startTrain(org, { dataset_id: ds.id, label_column: "churned", input_columns: ["usage", "churned"] });
    expect(label.status).toBe(422);
  });

  it("refuses a model type that does not exist, naming the model types", async () => {
    const bad = await startTrain(org, { dataset_id: ds.id, model_type: "magic" });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(["body", "model_type"]);
    expect(JSON.stringify(bad.body.detail[0])).toMatch(/causal/);
  });

  it("answers 422 for another organization's dataset, and creates no model", async () => {
    const other = await newOrg();
    const r = await startTrain(other, { dataset_id: ds.id, label_column: "churned" });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(["body", "dataset_id"]);
    const list = await json("/models", other);
    expect(list.body.items).toEqual([]);
  });

  it("answers 409 while the dataset version is not ready", async () => {
    const { undispatchedIngestJob } = await import("./helpers");
    const pending = await undispatchedIngestJob(org);
    const r = await startTrain(org, { dataset_version_id: pending.versionId, label_column: "churned" });
    expect(r.status).toBe(409);
    expect(r.body.detail).toMatch(/not ready: wait for its ingestion job/);
  });
});
