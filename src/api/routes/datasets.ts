import type { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { archiveVersion, deleteDataset } from "../../datasets/delete";
import { createDatasetFromUpload } from "../../datasets/direct-upload";
import { getDataset, listDatasets, listVersions } from "../../datasets/queries";
import { lookupRows, previewRows } from "../../datasets/rows";
import { batchTargetDataset, completeUpload, prepareUpload, receiveUpload } from "../../datasets/signed-upload";
import { listModelsOfDataset } from "../../models/queries";
import type { AppEnv } from "../context";
import * as def from "../definitions/datasets";
import { datasetDeps } from "../deps";
import { idempotent } from "../idempotency";
import { locationOf } from "../locations";
import { presentDataset, presentDatasetDetail, presentVersion } from "../presenters/datasets";
import { presentModel } from "../presenters/models";
import { presentPage } from "../presenters/page";
import { renameFieldPaths } from "../rename-field-paths";
import { apiRouter } from "../router";

export const datasetRoutes = apiRouter();

datasetRoutes.openapi(def.createDataset, async (c) => {
  const form = c.req.valid("form");
  const res = await idempotent(c.var.db, c.var.principal, "POST /datasets", c.req.header("Idempotency-Key"), form, async () => ({
    status: 201,
    body: await createDatasetFromUpload(datasetDeps(c), c.var.principal, {
      // The form validator's File is the runtime's (zod types it with another lib's File).
      file: form.file as unknown as File,
      name: form.dataset_name,
      datasetId: form.dataset_id,
      description: form.description,
    }),
  }));
  c.header("Location", locationOf.dataset(res.body.dataset.id));
  return c.json(res.body, 201);
});

datasetRoutes.openapi(def.prepareUpload, async (c) => {
  const body = c.req.valid("json");
  const res = await idempotent(c.var.db, c.var.principal, "POST /datasets/upload", c.req.header("Idempotency-Key"), body, async () => ({
    status: 201,
    body: await prepareSignedUpload(c, body),
  }));
  c.header("Location", locationOf.dataset(res.body.dataset.id));
  return c.json(res.body, 201);
});

/** POST /datasets/upload: one file, prepared as a batch of one. */
async function prepareSignedUpload(c: Context<AppEnv>, body: z.infer<typeof def.prepareUploadBody>) {
  // One file: the service names it files[0], this request calls it `file`.
  const r = await renameFieldPaths(
    () =>
      prepareUpload(datasetDeps(c), c.var.principal, {
        datasetId: body.dataset_id,
        name: body.dataset_name,
        description: body.description,
        files: [body.file],
      }),
    (path) => (path[0] === "files" && path[1] === 0 ? ["file", ...path.slice(2)] : path),
  );
  const u = r.uploads[0];
  return {
    upload: { upload_url: u.upload_url, method: "PUT" as const, headers: { "Content-Type": u.content_type }, expires_at: r.expiresAt },
    dataset: { id: r.dataset.id, version_id: r.version.id, version_number: r.version.version, archived: false },
    job_id: r.job.id,
    status: r.job.status,
  };
}

datasetRoutes.openapi(def.prepareBatchUpload, async (c) => {
  const body = c.req.valid("json");
  const deps = datasetDeps(c);
  const res = await idempotent(c.var.db, c.var.principal, "POST /api/datasets/batch", c.req.header("Idempotency-Key"), body, async () => {
    const r = await prepareUpload(deps, c.var.principal, {
      datasetId: await batchTargetDataset(deps, c.var.principal, body),
      name: body.dataset_name,
      description: body.description,
      files: body.files,
      input: body.table_name ? { table_name: body.table_name } : undefined,
    });
    return {
      status: 201,
      body: {
        dataset_id: r.dataset.id,
        dataset_version_id: r.version.id,
        job_id: r.job.id,
        expires_at: r.expiresAt,
        uploads: r.uploads.map((u) => ({ ...u, bucket: deps.uploadTarget.bucketName })),
      },
    };
  });
  c.header("Location", locationOf.dataset(res.body.dataset_id));
  return c.json(res.body, 201);
});

datasetRoutes.openapi(def.completeUpload, async (c) =>
  c.json(await completeUpload(datasetDeps(c), c.var.principal, c.req.valid("param").dataset_version_id), 200),
);
datasetRoutes.openapi(def.completeUploadApi, async (c) =>
  c.json(await completeUpload(datasetDeps(c), c.var.principal, c.req.valid("param").dataset_version_id), 200),
);

datasetRoutes.openapi(def.listDatasets, async (c) =>
  c.json(presentPage(await listDatasets(c.var.db, c.var.principal, c.req.valid("query")), presentDataset), 200),
);

datasetRoutes.openapi(def.getDataset, async (c) =>
  c.json(presentDatasetDetail(await getDataset(c.var.db, c.var.principal, c.req.valid("param").dataset_id)), 200),
);

datasetRoutes.openapi(def.deleteDataset, async (c) => {
  await deleteDataset(datasetDeps(c), c.var.principal, c.req.valid("param").dataset_id);
  return c.body(null, 204);
});

datasetRoutes.openapi(def.listVersions, async (c) =>
  c.json(presentPage(await listVersions(c.var.db, c.var.principal, c.req.valid("param").dataset_id, c.req.valid("query")), presentVersion), 200),
);

datasetRoutes.openapi(def.archiveVersion, async (c) => {
  const { dataset_id, dataset_version_id } = c.req.valid("param");
  return c.json(presentVersion(await archiveVersion(datasetDeps(c), c.var.principal, dataset_id, dataset_version_id)), 200);
});

datasetRoutes.openapi(def.previewRows, async (c) =>
  c.json(await previewRows(c.var.db, c.env.BUCKET, c.var.principal, c.req.valid("param").dataset_id, c.req.valid("query")), 200),
);

datasetRoutes.openapi(def.lookupRows, async (c) =>
  c.json(await lookupRows(c.var.db, c.env.BUCKET, c.var.principal, c.req.valid("param").dataset_id, c.req.valid("json")), 200),
);

datasetRoutes.openapi(def.listModelsOfDataset, async (c) =>
  c.json(presentPage(await listModelsOfDataset(c.var.db, c.var.principal, c.req.valid("param").dataset_id, c.req.valid("query")), presentModel), 200),
);

/** The signed-URL target; no API key (the token authorizes), and no principal. */
datasetRoutes.openapi(def.receiveUpload, async (c) => {
  const declared = Number(c.req.header("Content-Length") ?? Number.NaN);
  const put = {
    contentType: c.req.header("Content-Type") ?? "",
    contentLength: Number.isInteger(declared) ? declared : undefined,
    body: c.req.raw.body,
  };
  return c.json(await receiveUpload(datasetDeps(c), c.req.valid("param").token, put), 200);
});
