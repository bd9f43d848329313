/**
 * A search model's neighbours: its index (`index.bin`, through the ModelRuntime) is fetched and parsed once per
 * isolate, kept while the isolate's indexes stay within MAX_CACHED_INDEX_BYTES (least recently
 * used dropped first), and searched with the graph's query vectors.
 */
import type { Conflict } from "../core/errors";
import { IsolateCache } from "../core/isolate-cache";
import { MAX_CACHED_INDEX_BYTES } from "../core/limits";
import { parseSearchIndex, type SearchIndex, searchIndex } from "../ml/unsupervised/search";
import { ARTIFACT_FILES } from "../storage/keys";
import type { StoredVersion, UnsupervisedArtifact } from "./artifact";
import type { ModelRuntime } from "./model-runtime";
import type { GraphOutput } from "./run-graph";
import type { Neighbours } from "./unsupervised-table";

/** Each index counts as its file's bytes: the parsed index is views into them, not a copy. */
const indexes = new IsolateCache<SearchIndex>({ maxBytes: MAX_CACHED_INDEX_BYTES });

function loadIndex(rt: ModelRuntime, v: StoredVersion, missing: (v: StoredVersion) => Conflict): Promise<SearchIndex> {
  return indexes.get(v.id, async () => {
    const bytes = await rt.readFile(v, ARTIFACT_FILES.index);
    if (!bytes) throw missing(v);
    return { value: parseSearchIndex(bytes), bytes: bytes.byteLength };
  });
}

export async function searchNeighbours(
  rt: ModelRuntime,
  v: StoredVersion,
  a: UnsupervisedArtifact,
  vectors: GraphOutput | undefined,
  numRows: number,
  missing: (v: StoredVersion) => Conflict,
): Promise<Neighbours> {
  if (numRows === 0 || !vectors) return { ids: [], distances: [] };
  const index = await loadIndex(rt, v, missing);
  return searchIndex(index, vectors.data, numRows, Number(a.head.k));
}
