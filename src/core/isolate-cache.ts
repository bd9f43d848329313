/**
 * Values loaded by key and kept in the isolate (or process) between requests, bounded by the
 * bytes each one declares: what is built from immutable stored files (an ONNX session from its
 * model, a parsed featurizer file, a parsed search index) so that a warm request neither fetches
 * nor parses them again. A key names a value that never changes (e.g. a model version id), so
 * nothing expires; ./ttl-cache is the cache for mutable records.
 *
 * - One load per key: concurrent first requests for a key share it.
 * - A failed load is not kept: the next request for the key loads again.
 * - Bounded by bytes (and optionally by entries): least recently used values are evicted first.
 *   A load still under way is never evicted (its bytes are not known yet), and the value just
 *   loaded is always kept, even alone beyond the bound: the request that loaded it needs it.
 * - `release` (optional) frees what a value holds outside the JS heap (a session's wasm memory):
 *   it is called once for an evicted value, and only when no `use` holds that value any more,
 *   so eviction never pulls a value from under a run. An evicted value is otherwise left to GC.
 */

/** A loaded value and the bytes it counts for (e.g. the length of the file it was built from). */
export interface Sized<V> {
  value: V;
  bytes: number;
}

export interface IsolateCacheOptions<V> {
  /** Most bytes kept across values (the newest value is kept even when it alone is larger). */
  maxBytes: number;
  /** Most values kept (default: bounded by bytes only). */
  maxEntries?: number;
  /** Frees an evicted value once unused; a failure is ignored (the memory stays with the isolate). */
  release?: (value: V) => Promise<void> | void;
}

interface Entry<V> {
  promise: Promise<V>;
  /** Set once the load succeeded; only then do `bytes` count and can the value be released. */
  loaded: boolean;
  value: V | undefined;
  bytes: number;
  /** When it was last asked for (the cache's clock): the least recently used goes first. */
  usedAt: number;
  /** `use` calls running with the value: it is not released while any is. */
  pins: number;
  evicted: boolean;
  released: boolean;
}

export class IsolateCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly maxBytes: number;
  private readonly maxEntries: number;
  private readonly onRelease: ((value: V) => Promise<void> | void) | undefined;
  /** Bytes of the loaded values in `entries` (kept as a sum so that no request walks the map). */
  private loadedBytes = 0;
  /**
   * Stamps each request's entry, to order entries by last use. A hit only stamps (re-inserting the
   * entry to keep the Map itself in use order cost ~100 ns a hit, measured in Node); ordering is
   * paid only when a load takes the cache beyond a bound, beside that load's fetch and parse.
   */
  private clock = 0;

  constructor(options: IsolateCacheOptions<V>) {
    this.maxBytes = options.maxBytes;
    this.maxEntries = Math.max(1, options.maxEntries ?? Number.POSITIVE_INFINITY);
    this.onRelease = options.release;
  }

  /** The value for `key`, loaded by `load` on first use (or after a failed load or an eviction). */
  get(key: string, load: () => Promise<Sized<V>>): Promise<V> {
    return this.acquire(key, load).promise;
  }

  /** Runs `fn` with the value for `key`, which is not released until `fn` settles. */
  async use<T>(key: string, load: () => Promise<Sized<V>>, fn: (value: V) => Promise<T> | T): Promise<T> {
    const entry = this.acquire(key, load);
    entry.pins++;
    try {
      return await fn(await entry.promise);
    } finally {
      entry.pins--;
      if (entry.evicted && entry.pins === 0) this.release(entry);
    }
  }

  /** Drops `key` (its value released once unused; a load under way is released when it ends). */
  delete(key: string): void {
    const entry = this.entries.get(key);
    if (entry) this.evict(key, entry);
  }

  /** Drops every value. */
  clear(): void {
    for (const [key, entry] of this.entries) this.evict(key, entry);
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** Values kept, loads under way included. */
  get size(): number {
    return this.entries.size;
  }

  /** Bytes of the values kept. */
  get bytes(): number {
    return this.loadedBytes;
  }

  private acquire(key: string, load: () => Promise<Sized<V>>): Entry<V> {
    const hit = this.entries.get(key);
    if (hit) {
      hit.usedAt = ++this.clock;
      return hit;
    }
    const entry: Entry<V> = {
      promise: undefined as unknown as Promise<V>,
      loaded: false,
      value: undefined,
      bytes: 0,
      usedAt: ++this.clock,
      pins: 0,
      evicted: false,
      released: false,
    };
    entry.promise = (async () => {
      const { value, bytes } = await load();
      entry.value = value;
      entry.bytes = bytes;
      entry.loaded = true;
      if (!entry.evicted) {
        this.loadedBytes += bytes;
        this.enforceLimits(entry);
      } else if (entry.pins === 0) this.release(entry); // dropped (delete/clear) while loading
      return value;
    })();
    entry.promise.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    this.entries.set(key, entry);
    this.enforceLimits(entry);
    return entry;
  }

  /** Evicts least recently used loaded values (never `keep`) until within both bounds. */
  private enforceLimits(keep: Entry<V>): void {
    if (this.withinLimits()) return;
    const byLastUse = [...this.entries]
      .filter(([, entry]) => entry !== keep && entry.loaded) // a load under way has no bytes to give back
      .sort(([, a], [, b]) => a.usedAt - b.usedAt);
    for (const [key, entry] of byLastUse) {
      if (this.withinLimits()) return;
      this.evict(key, entry);
    }
  }

  private withinLimits(): boolean {
    return this.entries.size <= this.maxEntries && this.loadedBytes <= this.maxBytes;
  }

  private evict(key: string, entry: Entry<V>): void {
    if (this.entries.get(key) === entry) {
      this.entries.delete(key);
      if (entry.loaded) this.loadedBytes -= entry.bytes;
    }
    entry.evicted = true;
    if (entry.pins === 0) this.release(entry);
  }

  private release(entry: Entry<V>): void {
    if (!entry.loaded || entry.released) return; // a load under way is released when it ends
    entry.released = true;
    const value = entry.value as V;
    entry.value = undefined;
    if (!this.onRelease) return;
    try {
      Promise.resolve(this.onRelease(value)).catch(() => undefined);
    } catch {
      // a release that throws at once is ignored like one that rejects
    }
  }
}
