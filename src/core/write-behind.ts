import { AFTER_RESPONSE_MS } from "./after-response";

/**
 * Writes that may land after the response, gathered per isolate so that many requests' writes
 * go out as one (one D1 round trip for a burst of sync inferences instead of one each).
 *
 * The request that finds no open batch opens one and writes it after the delay, in its own
 * waitUntil; the requests that follow within the delay just leave their items in it. No request
 * ever waits on another's promise: in Workers a promise settled from another request's context is
 * not safe, and the opener's I/O runs in its own context. Items are plain data; `write` gets the
 * opener's dependencies. A batch holds at most `maxItems`: the next item opens another. Nothing
 * is ever written before the delay, so no caller's response waits for a write.
 */
export class WriteBehind<T, D> {
  private open: T[] | null = null;

  constructor(
    private readonly write: (deps: D, items: T[]) => Promise<void>,
    private readonly opts: { delayMs: number; maxItems: number } = { delayMs: AFTER_RESPONSE_MS, maxItems: 50 },
  ) {}

  /**
   * Leaves `item` to be written. Returns the write the caller must hand to waitUntil when this
   * call opened a batch, or null when a batch opened by an earlier call will carry it.
   */
  add(deps: D, item: T): Promise<void> | null {
    if (this.open && this.open.length < this.opts.maxItems) {
      this.open.push(item);
      return null;
    }
    const batch = [item];
    this.open = batch;
    return new Promise<void>((resolve) => setTimeout(resolve, this.opts.delayMs)).then(() => {
      if (this.open === batch) this.open = null;
      return this.write(deps, batch);
    });
  }

  /** Items in the open batch (tests, diagnostics). */
  get waiting(): number {
    return this.open?.length ?? 0;
  }
}
