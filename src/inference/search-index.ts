/** Placeholder until the search engine lands (replaced in this change). */
import type { Conflict } from "../core/errors";
import type { UnsupervisedArtifact } from "./artifact";
import type { GraphOutput } from "./run-graph";
import type { StoredVersion } from "./run-model";
import type { Neighbours } from "./unsupervised-table";

export async function searchNeighbours(
  _bucket: R2Bucket,
  _v: StoredVersion,
  _a: UnsupervisedArtifact,
  _vectors: GraphOutput | undefined,
  _numRows: number,
  _missing: (v: StoredVersion) => Conflict,
): Promise<Neighbours> {
  throw new Error("search is not wired yet");
}
