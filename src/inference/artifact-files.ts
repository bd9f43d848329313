/**
 * A model version's artifact files that its type's answer reads besides the graph (a search
 * model's index), fetched through the ModelRuntime and parsed once per isolate; kept while the
 * isolate's parsed files stay within MAX_CACHED_INDEX_BYTES of file size (least recently used
 * dropped first, the newest always kept).
 */
import type { Conflict } from "../core/errors";
import { MAX_CACHED_INDEX_BYTES } from "../core/limits";
import type { ArtifactFile } from "../storage/keys";
import type { ModelRuntime, StoredVersion } from "./model-runtime";

interface Entry {
  value: Promise<unknown>;
  bytes: number;
}

const parsed = new Map<string, Entry>(); // insertion order = least recently used first

/** File `name` of version `v`, parsed by `parse`; `missing` is the error when it is not stored. */
export function parsedArtifactFile<T>(
  rt: ModelRuntime,
  v: StoredVersion,
  name: ArtifactFile,
  parse: (bytes: Uint8Array) => T,
  missing: (v: StoredVersion) => Conflict,
): Promise<T> {
  const key = `${v.id}/${name}`;
  const hit = parsed.get(key);
  if (hit) {
    parsed.delete(key);
    parsed.set(key, hit);
    return hit.value as Promise<T>;
  }
  const entry: Entry = { value: null as unknown as Promise<T>, bytes: 0 };
  entry.value = (async () => {
    const bytes = await rt.readFile(v, name);
    if (!bytes) throw missing(v);
    entry.bytes = bytes.byteLength;
    evictBeyond(MAX_CACHED_INDEX_BYTES, key);
    return parse(bytes);
  })();
  entry.value.catch(() => parsed.get(key) === entry && parsed.delete(key));
  parsed.set(key, entry);
  return entry.value as Promise<T>;
}

function evictBeyond(maxBytes: number, keep: string): void {
  let total = 0;
  for (const e of parsed.values()) total += e.bytes;
  for (const [key, e] of [...parsed]) {
    if (total <= maxBytes) break;
    if (key === keep) continue;
    total -= e.bytes;
    parsed.delete(key);
  }
}
