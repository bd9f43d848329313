/**
 * The trainer's ModelRuntime for one batch inference job: the version's artifact files through
 * the control routes, and its ONNX session built once for the job and released at the end
 * (a trainer runs one job at a time; nothing is kept between jobs).
 */
import type { InferenceSession } from "onnxruntime-web/wasm";
import type { ModelRuntime } from "../inference/model-runtime";
import type { ControlClient } from "./control-client";
import { createNodeSession } from "./node-ort";

export interface JobRuntime extends ModelRuntime {
  release(): Promise<void>;
}

export function trainerModelRuntime(client: ControlClient): JobRuntime {
  const sessions = new Map<string, Promise<InferenceSession>>();
  return {
    readFile: (_version, file) => client.readArtifact(file),
    async withSession(key, load, fn) {
      let session = sessions.get(key);
      if (!session) {
        session = load().then(createNodeSession);
        session.catch(() => sessions.delete(key));
        sessions.set(key, session);
      }
      return fn(await session);
    },
    async release() {
      for (const s of sessions.values()) await s.then((x) => x.release()).catch(() => undefined);
      sessions.clear();
    },
  };
}
