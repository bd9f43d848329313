/**
 * What applying a stored model needs from the place it runs: the version's artifact files and an
 * ONNX session per version. Two implementations: the Worker (R2 and the isolate's session cache,
 * ./worker-runtime) and the trainer process (the internal control routes and onnxruntime-web in
 * Node, ../container/trainer-runtime). Nothing here names a Cloudflare type, so the trainer can
 * bundle the inference code.
 */
import type { InferenceSession } from "onnxruntime-web/wasm";
import type { ArtifactFile } from "../storage/keys";

/** What inference needs of a ready model version to find its files. */
export interface StoredVersion {
  id: string;
  version: number;
  artifactKey: string | null;
}

export interface ModelRuntime {
  /** One of the version's artifact files, or null when it is not stored. */
  readFile(v: StoredVersion, file: ArtifactFile): Promise<Uint8Array | null>;
  /** Runs `fn` with the session for `key` (built from `load`'s bytes on first use, kept while in use). */
  withSession<T>(key: string, load: () => Promise<Uint8Array>, fn: (session: InferenceSession) => Promise<T> | T): Promise<T>;
}
