/**
 * onnxruntime-web in Node for tests: one thread, no proxy worker, wasm binary read from
 * node_modules/onnxruntime-web/dist (the same binary the Worker bundles).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import * as ort from "onnxruntime-web";

let configured = false;

function configure(): void {
  if (configured) return;
  const require = createRequire(import.meta.url);
  const dist = dirname(require.resolve("onnxruntime-web"));
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.proxy = false;
  ort.env.wasm.wasmPaths = `${dist}/`;
  const bin = readFileSync(join(dist, "ort-wasm-simd-threaded.wasm"));
  ort.env.wasm.wasmBinary = bin.buffer.slice(bin.byteOffset, bin.byteOffset + bin.byteLength);
  configured = true;
}

export type OrtSession = ort.InferenceSession;

export async function createSession(bytes: Uint8Array): Promise<ort.InferenceSession> {
  configure();
  return ort.InferenceSession.create(bytes, { executionProviders: ["wasm"], graphOptimizationLevel: "all" });
}

/** Runs the session on a row-major float32 matrix; returns every output by name. */
export async function runFeatures(
  session: ort.InferenceSession,
  features: Float32Array,
  numRows: number,
  numFeatures: number,
): Promise<Record<string, ort.Tensor>> {
  const input = new ort.Tensor("float32", features, [numRows, numFeatures]);
  return session.run({ features: input });
}

/** Tensor data as plain numbers (int64 outputs come back as BigInt64Array). */
export function toNumbers(t: ort.Tensor): number[] {
  return Array.from(t.data as ArrayLike<number | bigint>, (v) => Number(v));
}
