// Writes src/limits.ts from openapi.json: the service's limits that change what the client does
// (today: the largest file a multipart POST /datasets takes; larger files go through a signed URL).
// The service owns them (src/core/limits.ts there); the OpenAPI document carries them here.
import { readFileSync, writeFileSync } from "node:fs";

const spec = JSON.parse(readFileSync(new URL("../openapi.json", import.meta.url), "utf8"));
const file = spec.paths["/datasets"].post.requestBody.content["multipart/form-data"].schema.properties.file;
if (!Number.isInteger(file?.maxLength)) throw new Error("openapi.json: POST /datasets states no maxLength for its file");
writeFileSync(
  new URL("../src/limits.ts", import.meta.url),
  `// Generated from openapi.json by scripts/limits.mjs; do not edit.\n` +
    `/** Files up to this size go in one multipart POST /datasets; larger ones through a signed URL. */\n` +
    `export const DIRECT_UPLOAD_MAX_BYTES = ${file.maxLength};\n`,
);
