/**
 * Columns decoded when they are read: a frame whose arrays (a column's `values` or `codes`, a
 * boolean column's spellings) are widened from their stored form only when a consumer reads the
 * property, and held only until the next column is decoded. The stored form of a large table is a
 * fraction of its decoded one (the benchmark table of 13 columns: ≈ 22 bytes a row stored, 80
 * decoded), so a job that reads the table one column at a time holds the stored bytes and one
 * wide column instead of every wide column at once.
 *
 * Only for consumers that read column by column (profile, featurizer, binning: every pass over the
 * table in a prediction model's training): code that reads a cell of one column, then of another,
 * row after row, would decode a whole column per cell. Such consumers get an eager frame
 * (decodeFrame without `lazy`).
 *
 * The property is an accessor shared by every lazy column (one getter per property name), its
 * state in a WeakMap keyed by the column. With a getter closure per column instead, the stored
 * frame and its last widened column stayed alive through boosting after the frame was dropped
 * (bench/large/RESULTS.md: +59 MiB of array buffers at 2 M rows); the likely path is V8's
 * hidden classes, which hold an object's accessors and may outlive it (not traced further).
 */
interface Slot {
  value: object | null;
  readonly decode: () => object;
  readonly owner: LazyColumns;
}

const slots = new WeakMap<object, Map<string, Slot>>();
const accessors = new Map<string, PropertyDescriptor>();

function accessor(prop: string): PropertyDescriptor {
  let d = accessors.get(prop);
  if (!d) {
    d = {
      enumerable: true,
      configurable: true,
      get(this: object) {
        const slot = slots.get(this)?.get(prop);
        if (!slot) throw new Error(`lazy column: no "${prop}" to decode for this object`);
        if (slot.value === null) {
          slot.value = slot.decode();
          slot.owner.hold(slot);
        }
        return slot.value;
      },
      // a consumer that replaces the array owns the new one: a plain property from then on
      set(this: object, v: unknown) {
        slots.get(this)?.delete(prop);
        Object.defineProperty(this, prop, { value: v, writable: true, enumerable: true, configurable: true });
      },
    };
    accessors.set(prop, d);
  }
  return d;
}

export class LazyColumns {
  /** The slots whose decoded arrays are held now, oldest first. */
  private readonly held: Slot[] = [];

  /** @param keep arrays held at once: the one being read. */
  constructor(private readonly keep = 1) {}

  /**
   * Makes `prop` of `target` a property decoded by `decode` when read. A consumer that keeps the
   * array it read keeps it alive itself; the frame only lets go of its own reference.
   */
  define<T extends object>(target: object, prop: string, decode: () => T): void {
    let byProp = slots.get(target);
    if (!byProp) slots.set(target, (byProp = new Map()));
    byProp.set(prop, { value: null, decode, owner: this });
    Object.defineProperty(target, prop, accessor(prop));
  }

  /** @internal the shared getter's: `slot` was just decoded; the oldest held array is let go of beyond `keep`. */
  hold(slot: Slot): void {
    this.held.push(slot);
    while (this.held.length > this.keep) {
      const oldest = this.held.shift();
      if (oldest) oldest.value = null;
    }
  }
}

/** Sets target[prop] to the decoded array now, or (with `lazy`) to a property decoding it when read. */
export function putColumnArray(lazy: LazyColumns | null, target: object, prop: string, decode: () => object): void {
  if (lazy) lazy.define(target, prop, decode);
  else (target as Record<string, unknown>)[prop] = decode();
}
