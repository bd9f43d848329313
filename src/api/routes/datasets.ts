import { Hono } from "hono";
import { z } from "zod";
import { tooLarge } from "../../datasets/direct-upload";
import { createDatasetFromUpload } from "../../datasets/direct-upload";
import { archiveVersion, deleteDataset } from "../../datasets/delete";
import { DIRECT_UPLOAD_MAX_BYTES, MULTIPART_SLACK_BYTES } from "../../datasets/deps";
import { getDataset, listDatasets, listModelsOfDataset, listVersions } from "../../datasets/queries";
import { lookupRows, previewRows } from "../../datasets/rows";
import { batchUploadBody, listDatasetsQuery, lookupBody, prepareUploadBody, previewQuery } from "../../datasets/schemas";
import { batchTargetDataset, completeUpload, prepareUpload } from "../../datasets/signed-upload";
import { pageQuery } from "../pagination";
import type { AppEnv } from "../context";
import { datasetDeps } from "../deps";
import { ApiError } from "../errors";
import { idempotent } from "../idempotency";
import { parseJsonBody, parseQuery } from "../validation";

export const datasetRoutes = new Hono<AppEnv>();


datasetRoutes.post("/datasets", async (c) => {
  const declared = Number(c.req.header("Content-Length") ?? 0);
  if (declared > DIRECT_UPLOAD_MAX_BYTES + MULTIPART_SLACK_BYTES) throw tooLarge();
  if (!(c.req.header("Content-Type") ?? "").toLowerCase().startsWith("multipart/form-data")) {
    throw new ApiError(415, "Send the file as multipart/form-data with a 'file' part and a 'dataset_name' field.");
  }
  const res = await idempotent(c.var.db, c.var.principal, "POST /datasets", c.req.header("Idempotency-Key"), async () => {
    const form = await c.req.parseBody().catch(() => {
      throw new ApiError(400, "Malformed multipart body.");
    });
    return { status: 201, body: await createDatasetFromUpload(datasetDeps(c), c.var.principal, form) };
  });
  return c.json(res.body, res.status);
});

datasetRoutes.post("/datasets/upload", async (c) => {
  const body = await parseJsonBody(c, prepareUploadBody);
  const r = await prepareUpload(datasetDeps(c), c.var.principal, new URL(c.req.url).origin, {
    datasetId: body.dataset_id,
    name: body.dataset_name,
    description: body.description,
    files: [body.file],
    fileLoc: () => ["body", "file"],
  });
  const u = r.uploads[0];
  return c.json(
    {
      upload: { upload_url: u.upload_url, method: "PUT", headers: { "Content-Type": u.content_type }, expires_at: r.expiresAt },
      dataset: { id: r.dataset.id, version_id: r.version.id, version_number: r.version.version, archived: false },
      job_id: r.job.id,
      status: r.job.status,
    },
    201,
  );
});

datasetRoutes.post("/api/datasets/batch", async (c) => {
  const body = await parseJsonBody(c, batchUploadBody);
  const deps = datasetDeps(c);
  const r = await prepareUpload(deps, c.var.principal, new URL(c.req.url).origin, {
    datasetId: await batchTargetDataset(deps, c.var.principal, body),
    name: body.dataset_name,
    description: body.description,
    files: body.files,
    input: body.table_name ? { table_name: body.table_name } : undefined,
  });
  return c.json(
    {
      dataset_id: r.dataset.id,
      dataset_version_id: r.version.id,
      job_id: r.job.id,
      expires_at: r.expiresAt,
      uploads: r.uploads.map((u) => ({ ...u, bucket: "tabular-ml-data" })),
    },
    201,
  );
});

for (const path of ["/datasets/:id/complete", "/api/datasets/:id/complete"]) {
  datasetRoutes.post(path, async (c) => c.json(await completeUpload(datasetDeps(c), c.var.principal, c.req.param("id")!)));
}

datasetRoutes.get("/datasets", async (c) => {
  const q = parseQuery(c, listDatasetsQuery);
  return c.json(await listDatasets(c.var.db, c.var.principal, q));
});

datasetRoutes.get("/datasets/:id", async (c) => c.json(await getDataset(c.var.db, c.var.principal, c.req.param("id"))));

datasetRoutes.delete("/datasets/:id", async (c) => {
  await deleteDataset(datasetDeps(c), c.var.principal, c.req.param("id"));
  return c.body(null, 204);
});

datasetRoutes.get("/datasets/:id/versions", async (c) => c.json(await listVersions(c.var.db, c.var.principal, c.req.param("id"))));

datasetRoutes.delete("/datasets/:id/versions/:versionId", async (c) =>
  c.json(await archiveVersion(datasetDeps(c), c.var.principal, c.req.param("id"), c.req.param("versionId"))),
);

datasetRoutes.get("/datasets/:id/preview", async (c) => {
  const q = parseQuery(c, previewQuery);
  return c.json(await previewRows(c.var.db, c.env.BUCKET, c.var.principal, c.req.param("id"), q));
});

datasetRoutes.post("/datasets/:id/rows/lookup", async (c) => {
  const body = await parseJsonBody(c, lookupBody);
  return c.json(await lookupRows(c.var.db, c.env.BUCKET, c.var.principal, c.req.param("id"), body));
});

datasetRoutes.get("/datasets/:id/models", async (c) => {
  const q = parseQuery(c, z.object(pageQuery));
  return c.json(await listModelsOfDataset(c.var.db, c.var.principal, c.req.param("id"), q));
});
