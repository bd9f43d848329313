/**
 * A search model's neighbours: its index (`index.bin`, through the ModelRuntime) is fetched and parsed once per
 * isolate, kept while the isolate's indexes stay within MAX_CACHED_INDEX_BYTES (least recently
 * used dropped first), and searched with the graph's query vectors.
 */
import type { Conflict } from "../core/errors";
import { MAX_CACHED_INDEX_BYTES } from "../core/limits";
import { parseSearchIndex, type SearchIndex, searchIndex } from "../ml/unsupervised/search";
import { ARTIFACT_FILES } from "../storage/keys";
import type { StoredVersion, UnsupervisedArtifact } from "./artifact";
import type { ModelRuntime } from "./model-runtime";
import type { GraphOutput } from "./run-graph";
import type { Neighbours } from "./unsupervised-table";

interface Entry {
  index: Promise<SearchIndex>;
  bytes: number;
}

const indexes = new Map<string, Entry>(); // insertion order = least recently used first

function loadIndex(rt: ModelRuntime, v: StoredVersion, missing: (v: StoredVersion) => Conflict): Promise<SearchIndex> {
  const hit = indexes.get(v.id);
  if (hit) {
    indexes.delete(v.id);
    indexes.set(v.id, hit);
    return hit.index;
  }
  const entry: Entry = { index: null as unknown as Promise<SearchIndex>, bytes: 0 };
  entry.index = (async () => {
    const bytes = await rt.readFile(v, ARTIFACT_FILES.index);
    if (!bytes) throw missing(v);
    entry.bytes = bytes.byteLength;
    evictBeyond(MAX_CACHED_INDEX_BYTES, v.id);
    return parseSearchIndex(bytes);
  })();
  entry.index.catch(() => indexes.get(v.id) === entry && indexes.delete(v.id));
  indexes.set(v.id, entry);
  return entry.index;
}

function evictBeyond(maxBytes: number, keep: string): void {
  let total = 0;
  for (const e of indexes.values()) total += e.bytes;
  for (const [id, e] of [...indexes]) {
    if (total <= maxBytes) break;
    if (id === keep) continue;
    total -= e.bytes;
    indexes.delete(id);
  }
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
