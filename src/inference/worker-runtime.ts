/** The Worker's ModelRuntime: artifact files from R2, sessions from the isolate's cache. */
import type { ArtifactFile } from "../storage/keys";
import type { ModelRuntime, StoredVersion } from "./model-runtime";
import { withSession } from "./session-cache";

export function workerModelRuntime(bucket: R2Bucket): ModelRuntime {
  return {
    async readFile(v: StoredVersion, file: ArtifactFile) {
      if (!v.artifactKey) return null;
      const obj = await bucket.get(v.artifactKey + file);
      return obj ? new Uint8Array(await obj.arrayBuffer()) : null;
    },
    withSession,
  };
}
