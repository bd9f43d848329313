// Writes src/limits.ts from openapi.json: the service's values that change what the client does
// (the largest file a multipart POST /datasets takes, larger files going through a signed URL;
// the model types a train request may name). The service owns them (src/core/limits.ts and the
// model-type registry there); the OpenAPI document carries them here.
import { readFileSync, writeFileSync } from "node:fs";

const spec = JSON.parse(readFileSync(new URL("../openapi.json", import.meta.url), "utf8"));
const file = spec.paths["/datasets"].post.requestBody.content["multipart/form-data"].schema.properties.file;
if (!Number.isInteger(file?.maxLength)) throw new Error("openapi.json: POST /datasets states no maxLength for its file");
const modelTypes = spec.components.schemas.Model?.properties?.model_type?.enum;
if (!Array.isArray(modelTypes) || modelTypes.length === 0) throw new Error("openapi.json: the Model schema lists no model_type values");
writeFileSync(
  new URL("../src/limits.ts", import.meta.url),
  `// Generated from openapi.json by scripts/limits.mjs; do not edit.\n` +
    `/** Files up to this size go in one multipart POST /datasets; larger ones through a signed URL. */\n` +
    `export const DIRECT_UPLOAD_MAX_BYTES = ${file.maxLength};\n` +
    `/** The model types the service trains, in its order. */\n` +
    `export const MODEL_TYPES = ${JSON.stringify(modelTypes)};\n`,
);
