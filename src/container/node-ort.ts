/**
 * onnxruntime-web in the trainer (Node): one thread, no proxy worker, and the wasm binary read
 * from disk — next to the bundled trainer in the container image (the Dockerfile copies it),
 * else from node_modules (`npm start`). The same build and binary the Worker runs, so batch
 * inference in the trainer answers exactly what sync inference answers.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import * as ort from "onnxruntime-web/wasm";

const WASM_FILE = "ort-wasm-simd-threaded.wasm";

function wasmPath(): string {
  const beside = fileURLToPath(new URL(`./${WASM_FILE}`, import.meta.url));
  if (existsSync(beside)) return beside;
  return createRequire(import.meta.url).resolve(`onnxruntime-web/${WASM_FILE}`);
}

let configured = false;

function configure(): void {
  if (configured) return;
  const bin = readFileSync(wasmPath());
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.proxy = false;
  ort.env.wasm.wasmBinary = bin.buffer.slice(bin.byteOffset, bin.byteOffset + bin.byteLength);
  ort.env.logLevel = "error";
  configured = true;
}

export function createNodeSession(bytes: Uint8Array): Promise<ort.InferenceSession> {
  configure();
  return ort.InferenceSession.create(bytes, { executionProviders: ["wasm"], graphOptimizationLevel: "all", logSeverityLevel: 3 });
}
