/**
 * causal models through the API: train (treatment inferred or named) → job output → infer →
 * estimate-causal-effect over the training data, a dataset, a file; and the bad inputs.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { MAX_FRAME_CELLS } from "../../src/core/limits";
import { call, json, newOrg, type TestOrg } from "./helpers";
import { churnCsv, inferForm, jobEnd, readyDataset, startTrain, trainAndWait } from "./model-helpers";

/**
 * Customers offered a discount (`offer`) by age: older ones more often, and age also raises
 * spend, so the naive difference overstates the effect. The effect on spend is 5, or 9 in
 * segment b; `churned` falls with the offer. Deterministic per seed.
 */
function causalCsv(n: number, seed: number, columns = ["customer", "age", "segment", "offer", "spend", "churned"]): { csv: string; ate: number } {
  let s = seed >>> 0;
  const u = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
  const lines = [columns.join(",")];
  let tauSum = 0;
  for (let i = 0; i < n; i++) {
    const age = 20 + 50 * u();
    const segment = ["a", "b", "c"][Math.floor(3 * u())];
    const offer = u() < sigmoid((age - 45) / 10) ? 1 : 0;
    const tau = segment === "b" ? 9 : 5;
    tauSum += tau;
    const noise = Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());
    const spend = 2 * age + (segment === "c" ? 10 : 0) + tau * offer + 3 * noise;
    const churned = u() < sigmoid(-(age - 45) / 20 - 1.2 * offer) ? "yes" : "no";
    const row: Record<string, string | number> = { customer: `c${seed}-${i}`, age: age.toFixed(2), segment, offer, spend: spend.toFixed(3), churned };
    lines.push(columns.map((c) => row[c]).join(","));
  }
  return { csv: `${lines.join("\n")}\n`, ate: tauSum / n };
}

let org: TestOrg;
let ds: any;
const N = 2000;
const training = causalCsv(N, 1);

beforeAll(async () => {
  org = await newOrg();
  ds = await readyDataset(org, training.csv, "offers");
}, 60_000);

const estimate = (modelId: string, body?: unknown, headers: Record<string, string> = {}) =>
  json<any>(`/models/${modelId}/estimate-causal-effect`, org, { method: "POST", body, headers });
const estimateFile = (modelId: string, csv: string, fields: Record<string, string> = {}) =>
  call(`/models/${modelId}/estimate-causal-effect`, { method: "POST", headers: org.auth, body: inferForm(csv, fields) }).then(async (r) => ({
    status: r.status,
    body: (await r.json()) as any,
  }));

describe("causal: numeric outcome, treatment inferred", () => {
  let t: any;
  beforeAll(async () => {
    t = await trainAndWait(
      org,
      { dataset_id: ds.id, model_name: "offer effect", model_type: "causal", label_column: "spend", input_columns: ["age", "segment"] },
      120_000,
    );
  }, 150_000);

  it("says which treatment it used and why, with the ATE, its interval and the diagnostics", async () => {
    expect(t.job.status, t.job.error_message).toBe("succeeded");
    const o = t.job.output;
    expect(o.treatment_column).toBe("offer");
    expect(o.treatment_reason).toMatch(/inferred/);
    expect(o.n_treated + o.n_control).toBe(N);
    expect(o.ci_low).toBeLessThan(o.ate);
    expect(o.ci_high).toBeGreaterThan(o.ate);
    expect(Math.abs(o.ate - training.ate)).toBeLessThan(4 * o.std_error);
    // the naive difference is biased upward by age (≈ +20)
    expect(o.estimates[0].naive_difference - training.ate).toBeGreaterThan(5);
    expect(o.propensity_range[0]).toBeLessThan(o.propensity_range[1]);
    expect(o.clipped_share).toBeGreaterThanOrEqual(0);
    expect(Array.isArray(o.warnings)).toBe(true);
    expect(o.heterogeneity_features[0].feature).toMatch(/segment/);
    expect(t.job.current_phase).toBeNull();
  });

  it("keeps current_metrics empty and shows the estimate on the version", async () => {
    const m = (await json<any>(`/models/${t.started.model.id}`, org)).body;
    expect(m.model_type).toBe("causal");
    expect(m.current_metrics).toEqual({});
    expect(m.label_column).toBeUndefined();
    expect(m.current_version.summary).toMatchObject({ treatment_column: "offer", outcome_column: "spend", ate: t.job.output.ate });
  });

  it("infers effect and both potential outcomes per row, ignoring the treatment and outcome columns", async () => {
    const rows = "customer,age,segment\nk1,30,a\nk2,60,b\n";
    const withExtra = "customer,age,segment,offer,spend\nk1,30,a,1,99\nk2,60,b,0,1\n";
    const r = await call(`/models/${t.started.model.id}/infer`, { method: "POST", headers: org.auth, body: inferForm(rows) });
    const body = (await r.json()) as any;
    expect(r.status, JSON.stringify(body)).toBe(200);
    expect(Object.keys(body.data)).toEqual(["id", "effect", "outcome_if_treated", "outcome_if_control"]);
    // segment b's effect (9) is larger than segment a's (5)
    expect(body.data.effect[1]).toBeGreaterThan(body.data.effect[0]);
    expect(body.data.outcome_if_treated[1]).toBeGreaterThan(body.data.outcome_if_control[1]);
    const again = (await (
      await call(`/models/${t.started.model.id}/infer`, { method: "POST", headers: org.auth, body: inferForm(withExtra) })
    ).json()) as any;
    expect(again.data).toEqual(body.data);
  });

  it("explains a row's effect: contributions add up to it, in words about the treatment", async () => {
    const r = await call(`/models/${t.started.model.id}/infer`, { method: "POST", headers: org.auth, body: inferForm("age,segment\n30,a\n60,b\n") });
    const inf = (await r.json()) as any;
    let recorded = 0;
    while ((await json(`/jobs/${inf.job_id}`, org)).status !== 200 && recorded++ < 100) await new Promise((res) => setTimeout(res, 100));
    const e = await json<any>(`/jobs/${inf.job_id}/explain`, org, { method: "POST", body: { ids: [1] } });
    expect(e.status, JSON.stringify(e.body)).toBe(202);
    const job = await jobEnd(org, e.body.id);
    expect(job.status, job.error_message).toBe("succeeded");
    const [row] = job.explanations;
    const sum = row.base_value + row.feature_contributions.reduce((s: number, c: any) => s + c.contribution, 0);
    expect(sum).toBeCloseTo(inf.data.effect[1], 5);
    expect(row.explanation_text).toMatch(/the effect of offer = '1' \(vs '0'\) on spend is estimated at/);
    expect(row.output_scale).toBe("units of spend");
  });

  it("estimates over the training data: the cross-fitted AIPW of the job", async () => {
    for (const body of [undefined, {}]) {
      const r = await estimate(t.started.model.id, body);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body).toMatchObject({ method: "aipw_cross_fitted", treatment_column: "offer", outcome_column: "spend", n: N, confidence: 0.95 });
      expect(r.body.data.source).toBe("training_data");
      expect(r.body.ate).toBeCloseTo(t.job.output.ate, 9);
      expect(r.body.ci_low).toBeCloseTo(t.job.output.ci_low, 9);
      expect(r.body.n_treated).toBe(t.job.output.n_treated);
      expect(r.body.groups).toBeNull();
    }
  });

  it("serves the pseudo-outcomes: their mean is the job's ATE", async () => {
    const r = await call(`/models/${t.started.model.id}/versions/1/artifact?part=pseudo_outcomes`, { headers: org.auth });
    expect(r.status).toBe(200);
    const phi = new Float64Array(await r.arrayBuffer());
    expect(phi.length).toBe(N);
    expect(phi.reduce((s, v) => s + v, 0) / N).toBeCloseTo(t.job.output.ate, 9);
    const graph = await call(`/models/${t.started.model.id}/versions/1/artifact?part=index`, { headers: org.auth });
    expect(graph.status).toBe(404);
  });

  it("naming the training dataset is the same cross-fitted estimate", async () => {
    const r = await estimate(t.started.model.id, { dataset_id: ds.id });
    expect(r.status).toBe(200);
    expect(r.body.method).toBe("aipw_cross_fitted");
    expect(r.body.data).toMatchObject({ source: "dataset_version", dataset_id: ds.id });
  });

  it("per group: segment b's effect is larger, and the groups add up to the rows", async () => {
    const r = await estimate(t.started.model.id, { group_by: "segment" });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const groups = Object.fromEntries(r.body.groups.map((g: any) => [g.value, g]));
    expect(Object.keys(groups).sort()).toEqual(["a", "b", "c"]);
    expect(groups.b.ate - groups.a.ate).toBeGreaterThan(2);
    expect(Math.abs(groups.b.ate - 9)).toBeLessThan(4 * groups.b.std_error);
    expect(r.body.groups.reduce((s: number, g: any) => s + g.n, 0)).toBe(N);
  });

  it("over a new file with treatment and outcome: AIPW with the served models", async () => {
    const fresh = causalCsv(600, 2);
    const r = await estimateFile(t.started.model.id, fresh.csv);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ method: "aipw", n: 600, data: { source: "file", filename: "rows.csv" } });
    expect(Math.abs(r.body.ate - fresh.ate)).toBeLessThan(4 * r.body.std_error);
  });

  it("over a new file without outcomes: the mean predicted effect, no interval, and it says so", async () => {
    const fresh = causalCsv(300, 3, ["customer", "age", "segment"]);
    const r = await estimateFile(t.started.model.id, fresh.csv, { group_by: "segment" });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ method: "mean_predicted_effect", n: 300, std_error: null, ci_low: null, confidence: null, n_treated: null });
    expect(r.body.warnings.join(" ")).toMatch(/no column "offer" or "spend"/);
    expect(r.body.ate).toBeGreaterThan(3);
    expect(r.body.groups).toHaveLength(3);
  });

  it("refuses an unknown group_by, the treatment as group_by, and a file without the input columns", async () => {
    const unknown = await estimate(t.started.model.id, { group_by: "ghost" });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail[0].loc).toEqual(["body", "group_by"]);
    expect(unknown.body.detail[0].msg).toMatch(/not in the data/);
    const treatment = await estimate(t.started.model.id, { group_by: "offer" });
    expect(treatment.status).toBe(422);
    expect(treatment.body.detail[0].loc).toEqual(["body", "group_by"]);
    const many = await estimate(t.started.model.id, { group_by: "customer" });
    expect(many.status).toBe(422);
    expect(many.body.detail[0].msg).toMatch(/more than 100 distinct values/);
    const noInputs = await estimateFile(t.started.model.id, "customer,offer,spend\nz1,1,3\n");
    expect(noInputs.status).toBe(422);
    expect(noInputs.body.detail[0].loc).toEqual(["body", "file"]);
    expect(noInputs.body.detail[0].msg).toMatch(/"age", "segment"/);
  });

  it("refuses unknown fields and two data sources", async () => {
    const extra = await estimate(t.started.model.id, { dataset: "x" });
    expect(extra.status).toBe(422);
    const both = await estimate(t.started.model.id, { dataset_id: ds.id, dataset_version_id: ds.version_id });
    expect(both.status).toBe(422);
  });
});

describe("causal: binary outcome, treatment named", () => {
  it("estimates the effect on the probability of churning (negative), per row and on average", async () => {
    const t = await trainAndWait(
      org,
      {
        dataset_id: ds.id,
        model_name: "offer churn",
        model_type: "causal",
        label_column: "churned",
        input_columns: ["age", "segment"],
        params: { action_column: "offer", folds: 3 },
      },
      120_000,
    );
    expect(t.job.status, t.job.error_message).toBe("succeeded");
    expect(t.job.output.treatment_reason).toMatch(/params.action_column/);
    expect(t.job.output.effect_scale).toMatch(/probability of churned = "yes"/);
    expect(t.job.output.ci_high).toBeLessThan(0);
    expect(t.job.output.representation).toBe("reused");
    const r = await estimate(t.started.model.id, {});
    expect(r.body.ate).toBeCloseTo(t.job.output.ate, 9);
    const inf = (await (
      await call(`/models/${t.started.model.id}/infer`, { method: "POST", headers: org.auth, body: inferForm("age,segment\n50,a\n") })
    ).json()) as any;
    expect(inf.data.outcome_if_control[0]).toBeGreaterThan(0);
    expect(inf.data.outcome_if_control[0]).toBeLessThan(1);
    expect(inf.data.effect[0]).toBeLessThan(0);
  }, 150_000);
});

describe("causal: a treatment with three arms", () => {
  it("estimates each arm against the control; inference answers lists in treated_arms order", async () => {
    const lines = ["x,campaign,spend"];
    for (let i = 0; i < 900; i++) {
      const x = (i * 37) % 100;
      const campaign = ["none", "email", "sms"][(i * 7 + Math.floor(x / 40)) % 3];
      lines.push(`${x},${campaign},${x / 10 + (campaign === "email" ? 3 : campaign === "sms" ? -2 : 0) + ((i * 13) % 5) / 5}`);
    }
    const arms = await readyDataset(org, `${lines.join("\n")}\n`, "arms");
    const t = await trainAndWait(
      org,
      {
        dataset_id: arms.id,
        model_name: "arms",
        model_type: "causal",
        label_column: "spend",
        params: { action_column: "campaign", control_value: "none", folds: 3 },
      },
      120_000,
    );
    expect(t.job.status, t.job.error_message).toBe("succeeded");
    expect(t.job.output.treated_arms).toEqual(["email", "sms"]);
    const est = await estimate(t.started.model.id, {});
    expect(est.status, JSON.stringify(est.body)).toBe(200);
    expect(est.body.ate).toBeNull();
    const [email, sms] = est.body.estimates;
    expect(email.arm).toBe("email");
    expect(email.ci_low).toBeLessThan(3);
    expect(email.ci_high).toBeGreaterThan(3);
    expect(sms.ci_low).toBeLessThan(-2);
    expect(sms.ci_high).toBeGreaterThan(-2);
    const r = await call(`/models/${t.started.model.id}/infer`, { method: "POST", headers: org.auth, body: inferForm("x\n50\n") });
    const body = (await r.json()) as any;
    expect(body.data.effect[0]).toHaveLength(2);
    expect(body.data.effect[0][0]).toBeGreaterThan(body.data.effect[0][1]);
    expect(typeof body.data.outcome_if_control[0]).toBe("number");
    const csv = await call(`/models/${t.started.model.id}/infer`, {
      method: "POST",
      headers: org.auth,
      body: inferForm("x\n50\n", { output_type: "csv" }),
    });
    expect(csv.status).toBe(200);
    expect((await csv.text()).split(/\r?\n/)[0]).toBe("id,effect,outcome_if_treated,outcome_if_control");
  }, 150_000);
});

describe("causal: bad requests", () => {
  it("a causal model needs label_column (422, loc named)", async () => {
    const r = await startTrain(org, { dataset_id: ds.id, model_type: "causal" });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(["body", "label_column"]);
  });

  it("an unknown action_column and bad params are 422 under params", async () => {
    const unknown = await startTrain(org, { dataset_id: ds.id, model_type: "causal", label_column: "spend", params: { action_column: "ghost" } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail[0].loc).toEqual(["body", "params", "action_column"]);
    const same = await startTrain(org, { dataset_id: ds.id, model_type: "causal", label_column: "spend", params: { action_column: "spend" } });
    expect(same.status).toBe(422);
    const clip = await startTrain(org, { dataset_id: ds.id, model_type: "causal", label_column: "spend", params: { propensity_clip: [0.6, 0.7] } });
    expect(clip.status).toBe(422);
    expect(clip.body.detail[0].loc.slice(0, 3)).toEqual(["body", "params", "propensity_clip"]);
  });

  it("no inferable treatment: the job fails listing the candidates and naming params.action_column", async () => {
    const plain = await readyDataset(org, churnCsv(120), "no treatment");
    const t = await trainAndWait(org, { dataset_id: plain.id, model_name: "no treatment", model_type: "causal", label_column: "spend" }, 90_000);
    expect(t.job.status).toBe("failed");
    expect(t.job.error_message).toMatch(/two-valued columns: "region", "churned"/);
    expect(t.job.error_message).toMatch(/params.action_column/);
  }, 120_000);

  it("estimating with a model that is not causal is a 422 at the path", async () => {
    const plain = await readyDataset(org, churnCsv(120), "plain");
    const m = await trainAndWait(org, { dataset_id: plain.id, model_name: "clusters", model_type: "clustering", params: { n_clusters: 2 } }, 90_000);
    expect(m.job.status).toBe("succeeded");
    const r = await estimate(m.started.model.id, {});
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(["path", "id"]);
    expect(r.body.detail[0].msg).toMatch(/clustering model/);
  }, 120_000);

  it("an unknown model is a 404", async () => {
    const r = await estimate(crypto.randomUUID(), {});
    expect(r.status).toBe(404);
  });
});

describe("causal: a model trained on more rows than the Worker reads", () => {
  it("answers the effect over its training data with a 409 instead of reading the pseudo-outcomes whole", async () => {
    const t = await trainAndWait(
      org,
      {
        dataset_id: ds.id,
        model_name: "large effect",
        model_type: "causal",
        label_column: "spend",
        input_columns: ["age"],
      },
      120_000,
    );
    expect(t.job.status, t.job.error_message).toBe("succeeded");
    const row = await env.DB.prepare("SELECT artifact_key FROM model_versions WHERE model_id = ?")
      .bind(t.started.model.id)
      .first<{ artifact_key: string }>();
    // as a trainer-fit model on 10 M rows and one arm would store them: one double more than the limit
    await env.BUCKET.put(`${row!.artifact_key}pseudo_outcomes.bin`, new Uint8Array((MAX_FRAME_CELLS + 1) * 8));
    const r = await estimate(t.started.model.id, {});
    expect(r.status).toBe(409);
    expect(r.body.detail).toBe(
      "Model version 1 was trained on more rows than its effect over them can be computed here (10,000,001 row and arm values, at most 10,000,000): send rows as a file or name a smaller dataset.",
    );
  }, 150_000);
});
