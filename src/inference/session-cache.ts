/**
 * ONNX inference sessions cached per isolate, keyed by e.g. the model version id.
 *
 * - Concurrent first requests for a key share one creation (one `load`, one `create`).
 * - A failed load or creation is not cached: the next request tries again.
 * - Bounded: at most `maxEntries` sessions and `maxBytes` of model bytes (a proxy for the wasm
 *   memory a session holds), least recently used evicted first. An evicted session is released
 *   (its wasm memory returned to ort's allocator). A session pinned by `use` / `withSession` is
 *   released only when its last user is done, so eviction never pulls a session from under a run.
 *   Note that wasm linear memory never shrinks: the bound limits the peak, released memory is
 *   reused by later sessions but not given back to the isolate.
 */
import { MAX_CACHED_SESSION_BYTES, MAX_CACHED_SESSIONS } from "../core/limits";
import { createOrtSession, type InferenceSession } from "./ort-runtime";

export interface Releasable {
  release(): Promise<void>;
}

export interface SessionCacheOptions<S extends Releasable> {
  /** Builds a session from model bytes. */
  create: (modelBytes: Uint8Array) => Promise<S>;
  /** Most sessions kept (default 32). */
  maxEntries?: number;
  /** Most model bytes kept across sessions (default 48 MiB); the newest session is always kept. */
  maxBytes?: number;
}

interface Entry<S> {
  promise: Promise<S>;
  session: S | null;
  bytes: number;
  pins: number;
  evicted: boolean;
}

export class SessionCache<S extends Releasable> {
  private readonly entries = new Map<string, Entry<S>>(); // insertion order = least recently used first
  private readonly create: (modelBytes: Uint8Array) => Promise<S>;
  private readonly maxEntries: number;
  private readonly maxBytes: number;

  constructor(options: SessionCacheOptions<S>) {
    this.create = options.create;
    this.maxEntries = Math.max(1, options.maxEntries ?? MAX_CACHED_SESSIONS);
    this.maxBytes = options.maxBytes ?? MAX_CACHED_SESSION_BYTES;
  }

  /** The session for `key`, created from `load()`'s bytes on first use. */
  get(key: string, load: () => Promise<Uint8Array>): Promise<S> {
    return this.acquire(key, load).promise;
  }

  /** Runs `fn` with the session for `key`, which stays alive (unreleased) until `fn` settles. */
  async use<T>(key: string, load: () => Promise<Uint8Array>, fn: (session: S) => Promise<T> | T): Promise<T> {
    const entry = this.acquire(key, load);
    entry.pins++;
    try {
      return await fn(await entry.promise);
    } finally {
      entry.pins--;
      if (entry.evicted && entry.pins === 0) this.release(entry);
    }
  }

  /** Drops `key` (releasing its session once unused). */
  delete(key: string): void {
    const entry = this.entries.get(key);
    if (entry) this.evict(key, entry);
  }

  /** Drops every session. */
  clear(): void {
    for (const [key, entry] of [...this.entries]) this.evict(key, entry);
  }

  get size(): number {
    return this.entries.size;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  private acquire(key: string, load: () => Promise<Uint8Array>): Entry<S> {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit;
    }
    const entry: Entry<S> = { promise: null as unknown as Promise<S>, session: null, bytes: 0, pins: 0, evicted: false };
    entry.promise = (async () => {
      const bytes = await load();
      entry.bytes = bytes.byteLength;
      const session = await this.create(bytes);
      entry.session = session;
      if (entry.evicted && entry.pins === 0)
        this.release(entry); // dropped (delete/clear) while being created
      else this.enforceLimits(key);
      return session;
    })();
    entry.promise.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    this.entries.set(key, entry);
    this.enforceLimits(key);
    return entry;
  }

  /** Evicts least recently used settled sessions (never `keep`) until within both bounds. */
  private enforceLimits(keep: string): void {
    let bytes = 0;
    for (const e of this.entries.values()) bytes += e.bytes;
    for (const [key, entry] of [...this.entries]) {
      if (this.entries.size <= this.maxEntries && bytes <= this.maxBytes) break;
      if (key === keep || entry.session === null) continue; // pending creations are not evicted
      bytes -= entry.bytes;
      this.evict(key, entry);
    }
  }

  private evict(key: string, entry: Entry<S>): void {
    if (this.entries.get(key) === entry) this.entries.delete(key);
    entry.evicted = true;
    if (entry.pins === 0) this.release(entry);
  }

  private release(entry: Entry<S>): void {
    const session = entry.session;
    if (!session) return; // still being created; released when creation finishes
    entry.session = null;
    session.release().catch(() => undefined);
  }
}

const isolateCache = new SessionCache<InferenceSession>({ create: createOrtSession });

/**
 * The isolate's session for `key` (e.g. a model version id), built from `load()`'s ONNX bytes on
 * first use. Prefer `withSession` around a run: a session obtained here may be released if it is
 * evicted (33 other models loaded) before the caller is done with it.
 */
export function getSession(key: string, load: () => Promise<Uint8Array>): Promise<InferenceSession> {
  return isolateCache.get(key, load);
}

/** Runs `fn` with the isolate's session for `key`, pinned (never released) until `fn` settles. */
export function withSession<T>(key: string, load: () => Promise<Uint8Array>, fn: (session: InferenceSession) => Promise<T> | T): Promise<T> {
  return isolateCache.use(key, load, fn);
}
