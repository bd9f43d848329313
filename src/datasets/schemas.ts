import { z } from "zod";
import { pageQuery } from "../api/pagination";
import { PREVIEW_ROWS } from "../storage/keys";

const name = z.string().trim().min(1).max(200);
const description = z.string().max(2000).optional();

export const directUploadForm = z.object({
  dataset_name: name.optional(),
  dataset_id: z.uuid().optional(),
  description,
});

const fileSpec = z.object({
  filename: z.string().trim().min(1).max(255),
  bytes: z.number().int().min(1),
  content_type: z.string().trim().min(1).max(200),
});

export const prepareUploadBody = z.object({
  dataset_name: name.optional(),
  dataset_id: z.uuid().optional(),
  description,
  file: fileSpec,
});

export const batchUploadBody = z.object({
  files: z
    .array(fileSpec.extend({ checksum_sha256: z.string().regex(/^[0-9a-fA-F]{64}$/, "must be 64 hex characters") }))
    .min(1)
    .max(100),
  dataset_name: name.optional(),
  dataset_id: z.uuid().optional(),
  table_name: z.string().max(200).optional(),
  description,
  overrides: z.boolean().optional(),
});

export const listDatasetsQuery = z.object({
  ...pageQuery,
  search: z.string().max(200).optional(),
});

export const previewQuery = z.object({
  limit: z.coerce.number().int().min(1).max(PREVIEW_ROWS).default(20),
  dataset_version_id: z.uuid().optional(),
});

export const lookupBody = z.object({
  ids: z.array(z.union([z.number().int(), z.string().min(1)])).min(1).max(500),
  dataset_version_id: z.uuid().optional(),
});
