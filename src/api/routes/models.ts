import type { ModelType } from "../../model-types/registry";
import { findModelVersion, readArtifact } from "../../models/artifacts";
import { estimateCausalEffect } from "../../models/causal-effect";
import { deleteModel } from "../../models/delete";
import { inferSync } from "../../models/infer";
import { startAsyncInference, startBatchInference } from "../../models/infer-async";
import { getModel, listModels, listModelVersions } from "../../models/queries";
import { startRetraining, startTraining } from "../../models/train";
import * as def from "../definitions/models";
import { jobDeps } from "../deps";
import { idempotent } from "../idempotency";
import { locationOf } from "../locations";
import { presentJob } from "../presenters/jobs";
import { presentModel, presentModelVersion } from "../presenters/models";
import { presentPage } from "../presenters/page";
import { apiRouter } from "../router";

export const modelRoutes = apiRouter();

modelRoutes.openapi(def.train, async (c) => {
  const body = c.req.valid("json");
  const res = await idempotent(c.var.db, c.var.principal, "POST /models/train", c.req.header("Idempotency-Key"), body, async () => ({
    status: 201,
    body: await startTraining(jobDeps(c), c.var.principal, body),
  }));
  c.header("Location", locationOf.model(res.body.model.id));
  return c.json(res.body, 201);
});

modelRoutes.openapi(def.retrain, async (c) => {
  const body = c.req.valid("json");
  const { model_id: id } = c.req.valid("param");
  const res = await idempotent(c.var.db, c.var.principal, `POST /models/${id}/retrain`, c.req.header("Idempotency-Key"), body, async () => ({
    status: 201,
    body: await startRetraining(jobDeps(c), c.var.principal, id, body),
  }));
  c.header("Location", locationOf.model(res.body.model.id));
  return c.json(res.body, 201);
});

modelRoutes.openapi(def.listModels, async (c) =>
  c.json(presentPage(await listModels(c.var.db, c.var.principal, c.req.valid("query")), presentModel), 200),
);

modelRoutes.openapi(def.getModel, async (c) => c.json(presentModel(await getModel(c.var.db, c.var.principal, c.req.valid("param").model_id)), 200));

modelRoutes.openapi(def.deleteModel, async (c) => {
  await deleteModel({ ...jobDeps(c), bucket: c.env.BUCKET }, c.var.principal, c.req.valid("param").model_id);
  return c.body(null, 204);
});

modelRoutes.openapi(def.listModelVersions, async (c) =>
  c.json(
    presentPage(await listModelVersions(c.var.db, c.var.principal, c.req.valid("param").model_id, c.req.valid("query")), presentModelVersion),
    200,
  ),
);

/** A ready version's ONNX graph (default), or with ?part= its featurizer, search index or whole summary. */
modelRoutes.openapi(def.getArtifact, async (c) => {
  const { model_id: id, version } = c.req.valid("param");
  const v = await findModelVersion(c.var.db, c.var.principal, id, version);
  const a = await readArtifact(c.env.BUCKET, v, c.req.valid("query").part);
  return c.body(a.body, 200, {
    "Content-Type": a.contentType,
    "Content-Length": String(a.size),
    "Content-Disposition": `attachment; filename="${a.filename}"`,
  });
});

/** Synchronous inference on an uploaded file (≤ 30 MB): predictions in the response. */
modelRoutes.openapi(def.infer, async (c) => {
  const started = Date.now();
  const deps = { ...jobDeps(c), replica: c.var.replica, bucket: c.env.BUCKET, defer: (p: Promise<unknown>) => c.executionCtx.waitUntil(p) };
  const form = c.req.valid("form");
  // The form validator's File is the runtime's (zod types it with another lib's File).
  const r = await inferSync(deps, c.var.principal, c.req.valid("param").model_id, { ...form, file: form.file as unknown as File }, started);
  c.set("jobId", r.jobId);
  const meta = {
    job_id: r.jobId,
    status: "succeeded" as const,
    latency_ms: r.latencyMs,
    model_id: r.model.id,
    model_name: r.model.name,
    model_type: r.model.modelType as ModelType,
    model_version_id: r.version.id,
  };
  if (!r.encoded) return c.json({ ...meta, data: r.table }, 200);
  return c.body(r.encoded.body, 200, {
    "Content-Type": r.encoded.contentType,
    "X-Job-Id": meta.job_id,
    "X-Latency-Ms": String(meta.latency_ms),
    "X-Model-Id": meta.model_id,
    "X-Model-Version-Id": meta.model_version_id,
  });
});

/** A causal model's average effect: JSON (training data or a dataset) or a multipart file. */
modelRoutes.openapi(def.estimateCausalEffect, async (c) => {
  const { model_id: id } = c.req.valid("param");
  const multipart = (c.req.header("Content-Type") ?? "").toLowerCase().startsWith("multipart/form-data");
  const body = multipart ? c.req.valid("form") : c.req.valid("json");
  // The form validator's File is the runtime's (zod types it with another lib's File).
  const req = { ...body, file: "file" in body ? (body.file as unknown as File) : undefined };
  return c.json(await estimateCausalEffect({ db: c.var.db, bucket: c.env.BUCKET }, c.var.principal, id, req), 200);
});

/** Asynchronous inference: the file to R2, an infer_batch job to the queue; 202 with the job. */
modelRoutes.openapi(def.inferAsync, async (c) => {
  const form = c.req.valid("form");
  const { model_id: id } = c.req.valid("param");
  const deps = { ...jobDeps(c), bucket: c.env.BUCKET };
  const res = await idempotent(c.var.db, c.var.principal, `POST /models/${id}/infer-async`, c.req.header("Idempotency-Key"), form, async () => ({
    status: 202,
    body: presentJob(await startAsyncInference(deps, c.var.principal, id, { ...form, file: form.file as unknown as File })),
  }));
  c.header("Location", locationOf.job(res.body.id));
  return c.json(res.body, 202);
});

/** Batch inference over a stored dataset version: 202 with the infer_batch job. */
modelRoutes.openapi(def.inferBatch, async (c) => {
  const body = c.req.valid("json");
  const { model_id: id } = c.req.valid("param");
  const res = await idempotent(c.var.db, c.var.principal, `POST /models/${id}/infer-batch`, c.req.header("Idempotency-Key"), body, async () => ({
    status: 202,
    body: presentJob(await startBatchInference(jobDeps(c), c.var.principal, id, body)),
  }));
  c.header("Location", locationOf.job(res.body.id));
  return c.json(res.body, 202);
});
