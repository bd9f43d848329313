import type { TrainingIO } from "../container/training-io";
import { decodeFrame } from "../ingest/columnar";
import type { JobControl } from "../jobs/work";
import type { TrainingTarget } from "./target";

const contentType = (file: string) => (file.endsWith(".json") ? "application/json" : "application/octet-stream");

/** Training inside the Worker: R2 directly, progress straight to the job's Durable Object. */
export function workerTrainingIO(bucket: R2Bucket, target: TrainingTarget, control: JobControl): TrainingIO {
  return {
    async loadFrame(opts) {
      const obj = await bucket.get(target.frameKey);
      if (!obj) throw new Error(`the training data is missing from storage (${target.frameKey})`);
      return decodeFrame(new Uint8Array(await obj.arrayBuffer()), opts);
    },
    async loadRepresentation() {
      const obj = await bucket.get(target.representationKey);
      return obj ? obj.text() : null;
    },
    async saveRepresentation(json) {
      await bucket.put(target.representationKey, json, { httpMetadata: { contentType: "application/json" } });
    },
    async saveArtifact(file, bytes) {
      await bucket.put(target.artifactPrefix + file, bytes, { httpMetadata: { contentType: contentType(file) } });
    },
    report: (r) => control.report(r),
  };
}
