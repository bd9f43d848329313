/**
 * A small per-isolate cache whose entries expire after a fixed time: what lets the warm request
 * path skip lookups whose answer rarely changes, while a change made elsewhere is still seen
 * within `ttlMs`. Bounded: past `maxEntries` the oldest entry goes. The clock is Date.now (tests
 * move it with fake timers).
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number; ttlMs: number; refreshClaimed?: boolean }>();

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
    this.entries.set(key, { value, expiresAt: Date.now() + ttlMs, ttlMs });
  }

  /**
   * True, once, for an entry in the last `withinMs` (at most a third) of its life: the caller then looks the value
   * up again in the background and set()s it, so that steady use never finds the entry expired and
   * never waits for a lookup. The entry's expiry does not move until that set: nothing is served
   * older than the cache's time. Once per entry, so a burst starts one refresh (one that fails
   * leaves the entry to expire and be looked up as a miss).
   */
  claimRefresh(key: string, withinMs: number): boolean {
    const hit = this.entries.get(key);
    const now = Date.now();
    // A third of the entry's own time at most: one kept for less (a principal read from a
    // replica) would otherwise be looked up again soon after each set.
    const window = Math.min(withinMs, hit ? hit.ttlMs / 3 : 0);
    if (!hit || hit.refreshClaimed || now >= hit.expiresAt || now < hit.expiresAt - window) return false;
    hit.refreshClaimed = true;
    return true;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  /** Every entry whose key starts with `prefix` (e.g. all of one organization's). */
  deletePrefix(prefix: string): void {
    for (const k of [...this.entries.keys()]) if (k.startsWith(prefix)) this.entries.delete(k);
  }
}
