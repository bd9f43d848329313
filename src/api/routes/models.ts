import { Hono } from "hono";
import { artifactQuery, listModelsQuery, retrainBody, trainBody } from "../../models/schemas";
import { findModelVersion, readArtifact } from "../../models/artifacts";
import { deleteModel } from "../../models/delete";
import { getModel, listModels, listModelVersions } from "../../models/queries";
import { startRetraining, startTraining } from "../../models/train";
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
