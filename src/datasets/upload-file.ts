import { TooLarge, UnsupportedMediaType } from "../core/errors";
import { DIRECT_UPLOAD_MAX_BYTES } from "../core/limits";
import { detectFormat, type FileFormat } from "../ingest/detect";

/** A direct upload over the limit: the message points to the signed-URL flow, which takes more. */
export const directUploadTooLarge = () =>
  new TooLarge(
    `File exceeds the ${DIRECT_UPLOAD_MAX_BYTES / 1024 / 1024} MB direct-upload limit. For larger files use the signed-URL flow: POST /datasets/upload, PUT the file to the returned upload_url, then POST /datasets/{dataset_version_id}/complete.`,
    DIRECT_UPLOAD_MAX_BYTES,
  );

export const unsupportedType = (filename: string) =>
  new UnsupportedMediaType(`Unsupported file type for '${filename}': upload a CSV (.csv, .tsv, .txt) or Parquet (.parquet) file.`);

/** The format of an uploaded file, from its name, declared type and first bytes; 415 when it is neither CSV nor Parquet. */
export async function uploadedFileFormat(file: File): Promise<FileFormat> {
  const head = new Uint8Array(await file.slice(0, 8).arrayBuffer());
  const format = detectFormat(file.name, file.type, head);
  if (!format) throw unsupportedType(file.name);
  return format;
}
