/**
 * Everything at once: 20 uploads (new versions of one dataset), 10 retrainings of one model,
 * 200 inferences and a cancel, in parallel. No 5xx; every job ends; version numbers are unique
 * and without gaps; every inference answered and recorded.
 */
import { expect, it } from "vitest";
import { call, csvForm, json, newOrg } from "./helpers";
import { churnCsv, inferForm, readyDataset, trainAndWait } from "./model-helpers";

const TERMINAL = ["succeeded", "failed", "canceled", "rejected"];

it("20 uploads, 10 trainings, 200 inferences and a cancel in parallel stay consistent", async () => {
  const org = await newOrg();
  const ds = await readyDataset(org, churnCsv(120));
  const { started } = await trainAndWait(org, { dataset_id: ds.id, label_column: "churned", params: { max_rounds: 5 } });
  const model = started.model.id;

  const statuses: number[] = [];
  const send = async (path: string, init: RequestInit) => {
    const res = await call(path, { ...init, headers: { ...org.auth, ...(init.headers as Record<string, string>) } });
    statuses.push(res.status);
    return { status: res.status, body: (await res.json()) as any };
  };
  const uploads = Array.from({ length: 20 }, (_, i) =>
    send("/datasets", { method: "POST", body: csvForm(`a,b\n${i},x\n${i + 1},y\n`, { dataset_id: ds.id }) }),
  );
  const trainings = Array.from({ length: 10 }, () =>
    send(`/models/${model}/retrain`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ dataset_id: ds.id }),
    }),
  );
  const inferences = Array.from({ length: 200 }, (_, i) =>
    send(`/models/${model}/infer`, { method: "POST", body: inferForm(`usage,plan,region,spend\n${i % 100},basic,north,${i}\n`) }),
  );
  // A cancel of one of the trainings while everything runs.
  const canceled = trainings[0].then((t) => send(`/jobs/${t.body.job_id}/cancel`, { method: "POST" }));
  const [up, tr, inf, cancel] = await Promise.all([Promise.all(uploads), Promise.all(trainings), Promise.all(inferences), canceled]);

  expect(statuses.filter((s) => s >= 500)).toEqual([]);
  expect(up.map((r) => r.status)).toEqual(Array(20).fill(201));
  expect(tr.map((r) => r.status)).toEqual(Array(10).fill(201));
  expect(inf.map((r) => r.status)).toEqual(Array(200).fill(200));
  expect(cancel.status).toBe(200); // canceled, or how it had already ended

  // Version numbers: unique, without gaps.
  expect(up.map((r) => r.body.dataset.version_number).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
  expect(tr.map((r) => r.body.model.version_number).sort((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, i) => i + 2));

  // Every job ends; the 200 inferences are all recorded (their records are written after the answers).
  let jobs: any[] = [];
  await expect
    .poll(
      async () => {
        jobs = [];
        let cursor: string | null = null;
        do {
          const page: any = (await json(`/jobs?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, org)).body;
          jobs.push(...page.items);
          cursor = page.next_cursor;
        } while (cursor);
        return jobs.filter((j) => j.type === "infer_sync").length === 200 && jobs.every((j) => TERMINAL.includes(j.status));
      },
      { timeout: 45_000, interval: 500 },
    )
    .toBe(true);
  const ingests = jobs.filter((j) => j.type === "dataset_ingest");
  expect(ingests).toHaveLength(21);
  expect(ingests.every((j) => j.status === "succeeded")).toBe(true);
  const trains = jobs.filter((j) => j.type === "train");
  expect(trains).toHaveLength(11);

  const versions = (await json(`/datasets/${ds.id}/versions?limit=200`, org)).body.items;
  expect(versions.map((v: any) => v.version).sort((a: number, b: number) => a - b)).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
  const modelVersions = (await json(`/models/${model}/versions`, org)).body.items;
  expect(modelVersions.map((v: any) => v.version).sort((a: number, b: number) => a - b)).toEqual(Array.from({ length: 11 }, (_, i) => i + 1));
  // A version's status agrees with its training job's.
  for (const t of tr) {
    const job = trains.find((j) => j.id === t.body.job_id || j.id.replace(/^job_/, "") === t.body.job_id.replace(/-/g, ""));
    const version = modelVersions.find((v: any) => v.version === t.body.model.version_number);
    expect(job, t.body.job_id).toBeDefined();
    expect(version.status === "ready").toBe(job.status === "succeeded");
  }
}, 120_000);
