/**
 * onnxruntime-web inside workerd.
 *
 * Workers refuse to compile WebAssembly from bytes at run time, and ort's loader would compile
 * from bytes (or fetch a file next to `import.meta.url`). So:
 * - `onnxruntime-web/wasm` is the wasm-only build with the Emscripten loader embedded;
 * - the `.wasm` file is imported as a module: wrangler's default CompiledWasm rule (and the vitest
 *   pool, which reads the same wrangler.toml) turn it into a precompiled `WebAssembly.Module`;
 * - ort is told to use one thread, no proxy worker, and a `wasmBinary` that is only a sentinel;
 *   the loader hands `new Uint8Array(sentinel)` to `WebAssembly.instantiate`, and a wrapper
 *   installed once per isolate answers exactly that call by instantiating the precompiled module
 *   (resolving to `{ instance, module }` as the bytes form would). Every other call goes through
 *   unchanged.
 *
 * ort initializes its wasm backend once per isolate, on the first `InferenceSession.create`; the
 * env settings must be in place before that and are ignored afterwards.
 */

import ortWasmModule from "onnxruntime-web/ort-wasm-simd-threaded.wasm";
import * as ort from "onnxruntime-web/wasm";
import { DataType, encodeModel } from "../ml/onnx/onnx-proto";

export type InferenceSession = ort.InferenceSession;

/** Identity-checked stand-in for the wasm bytes (never read as bytes by anyone). */
const WASM_SENTINEL = new ArrayBuffer(8);

let configured = false;
/** Times the wrapper answered the sentinel (1 once the backend is up; diagnostics and tests). */
let precompiledInstantiations = 0;
/** Settles when the first session creation (which initializes the backend) has settled. */
let backendReady: Promise<void> | null = null;

function isSentinel(source: unknown): boolean {
  if (source === WASM_SENTINEL) return true;
  return ArrayBuffer.isView(source) && source.buffer === WASM_SENTINEL;
}

function installInstantiateHook(): void {
  const original = WebAssembly.instantiate;
  const hooked = function instantiate(this: unknown, source: unknown, imports?: WebAssembly.Imports): Promise<unknown> {
    if (isSentinel(source)) {
      precompiledInstantiations++;
      return (original as (m: WebAssembly.Module, i?: WebAssembly.Imports) => Promise<WebAssembly.Instance>)
        .call(WebAssembly, ortWasmModule, imports)
        .then((instance) => ({ instance, module: ortWasmModule }));
    }
    return (original as (...args: unknown[]) => Promise<unknown>).apply(WebAssembly, [source, imports]);
  };
  WebAssembly.instantiate = hooked as typeof WebAssembly.instantiate;
}

/** Idempotent: configures ort and installs the instantiate wrapper on the first call only. */
function configureOrt(): typeof ort {
  if (configured) return ort;
  if (!(ortWasmModule instanceof WebAssembly.Module)) {
    throw new Error("onnxruntime-web: the .wasm import is not a WebAssembly.Module (CompiledWasm rule missing?)");
  }
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.proxy = false;
  ort.env.wasm.wasmBinary = WASM_SENTINEL;
  ort.env.logLevel = "error";
  installInstantiateHook();
  configured = true;
  return ort;
}

const SESSION_OPTIONS: ort.InferenceSession.SessionOptions = {
  executionProviders: ["wasm"],
  graphOptimizationLevel: "all",
  logSeverityLevel: 3,
};

/**
 * Creates an inference session from ONNX model bytes. The first call in an isolate also
 * initializes the wasm backend (hundreds of ms); concurrent callers wait for it instead of racing
 * the initialization.
 */
export async function createOrtSession(modelBytes: Uint8Array): Promise<InferenceSession> {
  configureOrt();
  if (!backendReady) {
    const first = ort.InferenceSession.create(modelBytes, SESSION_OPTIONS);
    backendReady = first.then(
      () => undefined,
      () => undefined,
    );
    return first;
  }
  await backendReady;
  return ort.InferenceSession.create(modelBytes, SESSION_OPTIONS);
}

/** The smallest graph ort accepts (y = Identity(x)): what warming the backend creates a session from. */
let warmupGraph: Uint8Array | null = null;
function identityGraph(): Uint8Array {
  warmupGraph ??= encodeModel({
    irVersion: 10,
    opsets: [{ domain: "", version: 17 }],
    producerName: "tabular-ml-service",
    producerVersion: "1",
    graph: {
      name: "warmup",
      nodes: [{ opType: "Identity", inputs: ["x"], outputs: ["y"] }],
      inputs: [{ name: "x", elemType: DataType.FLOAT, shape: [1] }],
      outputs: [{ name: "y", elemType: DataType.FLOAT, shape: [1] }],
      initializers: [],
    },
    metadata: {},
  });
  return warmupGraph;
}

/**
 * Brings ort's wasm backend up in this isolate ahead of any model (measured on the local service:
 * ~350 ms of a first inference's ~430 ms is this, the model's own fetch and session ~60 ms), so
 * that the first prediction after a model becomes ready does not pay it. Idempotent, never throws:
 * a failure here leaves the backend to come up on the first real session, as without warming.
 */
export async function warmOrtBackend(): Promise<void> {
  if (backendReady) return backendReady;
  try {
    const session = await createOrtSession(identityGraph());
    await session.release();
  } catch (e) {
    console.error("warming the ONNX runtime failed", e);
  }
}

/**
 * Diagnostics: whether ort is configured and how often the precompiled module was instantiated.
 * @internal for the tests (test/worker/ort-runtime.test.ts, ort-warmup.test.ts): it reads this module's state
 */
export function ortRuntimeStatus(): { configured: boolean; precompiledInstantiations: number } {
  return { configured, precompiledInstantiations };
}
