/**
 * Writes the API's OpenAPI document to sdk/openapi.json (what the SDK's types are generated
 * from), or with --check fails when the committed file differs from what the routes say now.
 *
 *   npm run openapi            write it
 *   npm run openapi -- --check compare (part of npm run check)
 *
 * The document is built in Node from the same route definitions the Worker serves; the few
 * Workers-only imports the app pulls in (the runtime module, the ONNX wasm) are stubbed, since
 * building the document never runs them.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { registerHooks } from "node:module";

const STUBS: Record<string, string> = {
  "cloudflare:workers": "export class DurableObject {}; export class WorkerEntrypoint {}; export const env = {};",
};

registerHooks({
  resolve(specifier, context, next) {
    if (specifier in STUBS) return { url: `stub:${specifier}`, shortCircuit: true };
    if (specifier.endsWith(".wasm")) return { url: "stub:wasm", shortCircuit: true };
    return next(specifier, context);
  },
  load(url, context, next) {
    if (url.startsWith("stub:")) {
      return { format: "module", source: STUBS[url.slice(5)] ?? "export default undefined;", shortCircuit: true };
    }
    return next(url, context);
  },
});

const { createApp } = await import("../src/api/app");
const { openApiDocument } = await import("../src/api/openapi-document");

const FILE = new URL("../sdk/openapi.json", import.meta.url);
const text = `${JSON.stringify(openApiDocument(createApp()), null, 2)}\n`;

if (process.argv.includes("--check")) {
  let committed = "";
  try {
    committed = readFileSync(FILE, "utf8");
  } catch {
    // missing: differs
  }
  if (committed !== text) {
    console.error("sdk/openapi.json is not the document the routes describe: run `npm run openapi` and commit it.");
    process.exit(1);
  }
} else {
  writeFileSync(FILE, text);
  console.log(`wrote ${FILE.pathname}`);
}
