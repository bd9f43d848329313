import { Hono } from "hono";
import { artifactQuery, listModelsQuery, retrainBody, trainBody } from "../../models/schemas";
import { findModelVersion, readArtifact } from "../../models/artifacts";
import { deleteModel } from "../../models/delete";
import { getModel, listModels, listModelVersions } from "../../models/queries";
import { startRetraining, startTraining } from "../../models/train";
import { inferSync } from "../../models/infer";
import { tooLarge } from "../../datasets/direct-upload";
import { DIRECT_UPLOAD_MAX_BYTES, MULTIPART_SLACK_BYTES } from "../../datasets/deps";
import { ApiError } from "../errors";
import type { AppEnv } from "../context";
import { jobDeps } from "../deps";
import { idempotent } from "../idempotency";
import { parseJsonBody, parseQuery } from "../validation";

export const modelRoutes = new Hono<AppEnv>();

modelRoutes.post("/models/train", async (c) => {
  const body = await parseJsonBody(c, trainBody);
  const res = await idempotent(c.var.db, c.var.principal, "POST /models/train", c.req.header("Idempotency-Key"), async () => ({
    status: 201,
    body: await startTraining(jobDeps(c), c.var.principal, body),
  }));
  return c.json(res.body, res.status);
});

modelRoutes.post("/models/:id/retrain", async (c) => {
  const body = await parseJsonBody(c, retrainBody);
  const id = c.req.param("id");
  const res = await idempotent(c.var.db, c.var.principal, `POST /models/${id}/retrain`, c.req.header("Idempotency-Key"), async () => ({
    status: 201,
    body: await startRetraining(jobDeps(c), c.var.principal, id, body),
  }));
  return c.json(res.body, res.status);
});

modelRoutes.get("/models", async (c) => c.json(await listModels(c.var.db, c.var.principal, parseQuery(c, listModelsQuery))));

modelRoutes.get("/models/:id", async (c) => c.json(await getModel(c.var.db, c.var.principal, c.req.param("id"))));

modelRoutes.delete("/models/:id", async (c) => {
  await deleteModel({ ...jobDeps(c), bucket: c.env.BUCKET }, c.var.principal, c.req.param("id"));
  return c.body(null, 204);
});

modelRoutes.get("/models/:id/versions", async (c) => c.json(await listModelVersions(c.var.db, c.var.principal, c.req.param("id"))));

/** A ready version's ONNX graph (default) or, with ?part=featurizer, the featurizer that feeds it. */
modelRoutes.get("/models/:id/versions/:version/artifact", async (c) => {
  const { part } = parseQuery(c, artifactQuery);
  const v = await findModelVersion(c.var.db, c.var.principal, c.req.param("id"), c.req.param("version"));
  const a = await readArtifact(c.env.BUCKET, v, part);
  return new Response(a.body, {
    headers: {
      "Content-Type": a.contentType,
      "Content-Length": String(a.size),
      "Content-Disposition": `attachment; filename="${a.filename}"`,
    },
  });
});


/** Synchronous inference on an uploaded file (≤ 30 MB): predictions in the response. */
modelRoutes.post("/models/:id/infer", async (c) => {
  const started = Date.now();
  if (Number(c.req.header("Content-Length") ?? 0) > DIRECT_UPLOAD_MAX_BYTES + MULTIPART_SLACK_BYTES) throw tooLarge();
  if (!(c.req.header("Content-Type") ?? "").toLowerCase().startsWith("multipart/form-data")) {
    throw new ApiError(415, "Send the file as multipart/form-data with a 'file' part (and optionally 'output_type', 'model_version_id').");
  }
  const form = await c.req.parseBody().catch(() => {
    throw new ApiError(400, "Malformed multipart body.");
  });
  const deps = { ...jobDeps(c), bucket: c.env.BUCKET, defer: (p: Promise<unknown>) => c.executionCtx.waitUntil(p) };
  const r = await inferSync(deps, c.var.principal, c.req.param("id"), form, started);
  const meta = {
    job_id: r.jobId,
    status: "succeeded",
    latency_ms: r.latencyMs,
    model_id: r.model.id,
    model_name: r.model.name,
    model_type: r.model.modelType,
    model_version_id: r.version.id,
  };
  if (!r.encoded) return c.json({ ...meta, data: r.table });
  return new Response(r.encoded.body, {
    headers: {
      "Content-Type": r.encoded.contentType,
      "X-Job-Id": meta.job_id,
      "X-Latency-Ms": String(meta.latency_ms),
      "X-Model-Id": meta.model_id,
      "X-Model-Version-Id": meta.model_version_id,
    },
  });
});
