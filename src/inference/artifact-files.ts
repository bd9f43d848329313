/**
 * A model version's artifact files that its type's answer reads besides the graph (a search
 * model's index), fetched through the ModelRuntime and parsed once per isolate; kept while the
 * isolate's parsed files stay within MAX_CACHED_INDEX_BYTES of file size (least recently used
 * dropped first, the newest always kept). Each counts as its file's bytes: a parsed index is
 * views into them, not a copy. Kept by version and file name: a file has one format, so one
 * parser (its type's) reads it.
 */
import type { Conflict } from "../core/errors";
import { IsolateCache } from "../core/isolate-cache";
import { MAX_CACHED_INDEX_BYTES } from "../core/limits";
import type { ArtifactFile } from "../storage/keys";
import type { ModelRuntime, StoredVersion } from "./model-runtime";

const parsed = new IsolateCache<unknown>({ maxBytes: MAX_CACHED_INDEX_BYTES });

/** File `name` of version `v`, parsed by `parse`; `missing` is the error when it is not stored. */
export function parsedArtifactFile<T>(
  rt: ModelRuntime,
  v: StoredVersion,
  name: ArtifactFile,
  parse: (bytes: Uint8Array) => T,
  missing: (v: StoredVersion) => Conflict,
): Promise<T> {
  return parsed.get(`${v.id}/${name}`, async () => {
    const bytes = await rt.readFile(v, name);
    if (!bytes) throw missing(v);
    return { value: parse(bytes), bytes: bytes.byteLength };
  }) as Promise<T>;
}
