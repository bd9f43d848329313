/**
 * ONNX inference sessions cached per isolate, keyed by e.g. the model version id: an
 * IsolateCache (../core/isolate-cache) of sessions, each counted as its model's bytes (a proxy for
 * the wasm memory it holds) and released (its wasm memory returned to ort's allocator) once
 * evicted and no run holds it. Concurrent first requests share one load and one creation; a
 * failed load or creation is not kept. Note that wasm linear memory never shrinks: the bound
 * limits the peak, released memory is reused by later sessions but not given back to the isolate.
 */
import { IsolateCache, type Sized } from "../core/isolate-cache";
import { MAX_CACHED_SESSION_BYTES, MAX_CACHED_SESSIONS } from "../core/limits";
import { createOrtSession, type InferenceSession } from "./ort-runtime";

/** @internal exported for test/worker/ort-session-cache.test.ts */
export interface Releasable {
  release(): Promise<void>;
}

interface SessionCacheOptions<S extends Releasable> {
  /** Builds a session from model bytes. */
  create: (modelBytes: Uint8Array) => Promise<S>;
  /** Most sessions kept (default MAX_CACHED_SESSIONS). */
  maxEntries?: number;
  /** Most model bytes kept across sessions (default MAX_CACHED_SESSION_BYTES); the newest session is always kept. */
  maxBytes?: number;
}

/**
 * An IsolateCache whose loader yields model bytes: the session is created from them here.
 * @internal exported for its unit test (test/worker/ort-session-cache.test.ts)
 */
export class SessionCache<S extends Releasable> {
  private readonly sessions: IsolateCache<S>;
  private readonly create: (modelBytes: Uint8Array) => Promise<S>;

  constructor(options: SessionCacheOptions<S>) {
    this.create = options.create;
    this.sessions = new IsolateCache<S>({
      maxEntries: options.maxEntries ?? MAX_CACHED_SESSIONS,
      maxBytes: options.maxBytes ?? MAX_CACHED_SESSION_BYTES,
      release: (session) => session.release(),
    });
  }

  /** The session for `key`, created from `load()`'s bytes on first use. */
  get(key: string, load: () => Promise<Uint8Array>): Promise<S> {
    return this.sessions.get(key, () => this.build(load));
  }

  /** Runs `fn` with the session for `key`, which stays alive (unreleased) until `fn` settles. */
  use<T>(key: string, load: () => Promise<Uint8Array>, fn: (session: S) => Promise<T> | T): Promise<T> {
    return this.sessions.use(key, () => this.build(load), fn);
  }

  /** Drops `key` (releasing its session once unused). */
  delete(key: string): void {
    this.sessions.delete(key);
  }

  /** Drops every session. */
  clear(): void {
    this.sessions.clear();
  }

  get size(): number {
    return this.sessions.size;
  }

  has(key: string): boolean {
    return this.sessions.has(key);
  }

  private async build(load: () => Promise<Uint8Array>): Promise<Sized<S>> {
    const modelBytes = await load();
    return { value: await this.create(modelBytes), bytes: modelBytes.byteLength };
  }
}

const isolateCache = new SessionCache<InferenceSession>({ create: createOrtSession });

/**
 * The isolate's session for `key` (e.g. a model version id), built from `load()`'s ONNX bytes on
 * first use. Prefer `withSession` around a run: a session obtained here may be released if it is
 * evicted (33 other models loaded) before the caller is done with it.
 * @internal for test/worker/ort-session-cache.test.ts, which looks into the isolate's cache with it; product code uses withSession
 */
export function getSession(key: string, load: () => Promise<Uint8Array>): Promise<InferenceSession> {
  return isolateCache.get(key, load);
}

/** Runs `fn` with the isolate's session for `key`, pinned (never released) until `fn` settles. */
export function withSession<T>(key: string, load: () => Promise<Uint8Array>, fn: (session: InferenceSession) => Promise<T> | T): Promise<T> {
  return isolateCache.use(key, load, fn);
}
