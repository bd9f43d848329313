/**
 * A small per-isolate cache whose entries expire after a fixed time: what lets the warm request
 * path skip lookups whose answer rarely changes, while a change made elsewhere is still seen
 * within `ttlMs`. Bounded: past `maxEntries` the oldest entry goes. The clock is Date.now (tests
 * move it with fake timers).
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  get(key: string): V | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (Date.now() >= hit.expiresAt) {
      this.entries.delete(key);
      return undefined;
    }
    return hit.value;
  }

  /** Keeps `value` for the cache's time, or for `ttlMs` when given (an entry trusted less). */
  set(key: string, value: V, ttlMs = this.ttlMs): void {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, expiresAt: Date.now() + ttlMs });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  /** Every entry whose key starts with `prefix` (e.g. all of one organization's). */
  deletePrefix(prefix: string): void {
    for (const k of [...this.entries.keys()]) if (k.startsWith(prefix)) this.entries.delete(k);
  }
}
