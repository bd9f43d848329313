/**
 * A search's rows and plan, and a trial's outcome, as bytes: what a trial run on another trainer
 * instance reads and gives back. One layout for both: a 4-byte length, a JSON header (the plain
 * fields and a table of the typed arrays), then the arrays' bytes, each at a multiple of 8 so that
 * they are read in place, without a copy. Floats keep every bit (the models' numbers go through
 * JSON, which round-trips doubles exactly).
 */
import type { FeatureBins } from "../../gbdt/bins";
import type { GbdtModel } from "../../gbdt/model";
import type { StopReason } from "../../gbdt/train";
import type { Label } from "../../label";
import type { FoldPlan } from "./folds";
import type { SearchRows, TrialOutcome, TrialStatus } from "./trial";

type Typed = Int32Array | Uint8Array | Float64Array;
const KINDS = { i32: Int32Array, u8: Uint8Array, f64: Float64Array } as const;
type Kind = keyof typeof KINDS;

interface Header<T> {
  fields: T;
  arrays: { kind: Kind; length: number; offset: number }[];
}

function kindOf(a: Typed): Kind {
  if (a instanceof Int32Array) return "i32";
  if (a instanceof Uint8Array) return "u8";
  return "f64";
}

const align8 = (n: number) => Math.ceil(n / 8) * 8;

/** `fields` as JSON, each array referred to by its index in `arrays`. */
function pack<T>(fields: T, arrays: Typed[]): Uint8Array {
  const table: Header<T>["arrays"] = [];
  let at = 0;
  for (const a of arrays) {
    table.push({ kind: kindOf(a), length: a.length, offset: at });
    at = align8(at + a.byteLength);
  }
  const json = new TextEncoder().encode(JSON.stringify({ fields, arrays: table } satisfies Header<T>));
  const start = align8(4 + json.length);
  const out = new Uint8Array(start + at);
  new DataView(out.buffer).setUint32(0, json.length, true);
  out.set(json, 4);
  arrays.forEach((a, i) => {
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), start + table[i].offset);
  });
  return out;
}

function unpack<T>(bytes: Uint8Array): { fields: T; arrays: Typed[] } {
  // the arrays are read in place: copy once if the bytes do not start at a multiple of 8
  const b = bytes.byteOffset % 8 === 0 ? bytes : bytes.slice();
  const length = new DataView(b.buffer, b.byteOffset, b.byteLength).getUint32(0, true);
  const header = JSON.parse(new TextDecoder().decode(b.subarray(4, 4 + length))) as Header<T>;
  const start = b.byteOffset + align8(4 + length);
  const arrays = header.arrays.map(({ kind, length: n, offset }) => new KINDS[kind](b.buffer as ArrayBuffer, start + offset, n));
  return { fields: header.fields, arrays };
}

/** The search's rows and fold plan; array fields hold indices into the packed arrays. */
interface DataFields {
  rows: number | null;
  binned: number | { fit: number; score: number };
  bins: FeatureBins[];
  featureNames: string[];
  label: { task: Label["task"]; y: number; rows: number; classes: string[] | null };
  method: FoldPlan["method"];
  folds: { fit: number; score: number }[];
}

export function encodeSearchData(data: SearchRows, plan: FoldPlan): Uint8Array {
  const arrays: Typed[] = [];
  const ref = (a: Typed) => arrays.push(a) - 1;
  const fields: DataFields = {
    rows: data.rows ? ref(data.rows) : null,
    binned: data.binned instanceof Uint8Array ? ref(data.binned) : { fit: ref(data.binned.fit), score: ref(data.binned.score) },
    bins: data.bins,
    featureNames: data.featureNames,
    label: { task: data.label.task, y: ref(data.label.y), rows: ref(data.label.rows), classes: data.label.classes },
    method: plan.method,
    folds: plan.folds.map((f) => ({ fit: ref(f.fit), score: ref(f.score) })),
  };
  return pack(fields, arrays);
}

export function decodeSearchData(bytes: Uint8Array): { data: SearchRows; plan: FoldPlan } {
  const { fields: f, arrays } = unpack<DataFields>(bytes);
  const i32 = (i: number) => arrays[i] as Int32Array;
  const u8 = (i: number) => arrays[i] as Uint8Array;
  return {
    data: {
      rows: f.rows === null ? null : i32(f.rows),
      binned: typeof f.binned === "number" ? u8(f.binned) : { fit: u8(f.binned.fit), score: u8(f.binned.score) },
      bins: f.bins,
      featureNames: f.featureNames,
      label: { task: f.label.task, y: arrays[f.label.y] as Float64Array, rows: i32(f.label.rows), classes: f.label.classes },
    },
    plan: { method: f.method, folds: f.folds.map((x) => ({ fit: i32(x.fit), score: i32(x.score) })) },
  };
}

interface OutcomeFields {
  trial: number;
  status: TrialStatus;
  seconds: number;
  message?: string;
  instance?: string;
  fits: { model: GbdtModel; raw: number; loss: number; rounds: number; stopReason: StopReason }[];
}

export function encodeTrialOutcome(o: TrialOutcome): Uint8Array {
  const arrays: Typed[] = [];
  const fields: OutcomeFields = {
    trial: o.trial,
    status: o.status,
    seconds: o.seconds,
    message: o.message,
    instance: o.instance,
    // a loss of Infinity (a fold without a score) is not JSON: null stands for it
    fits: o.fits.map((f) => ({ model: f.model, raw: arrays.push(f.raw) - 1, loss: f.loss, rounds: f.rounds, stopReason: f.stopReason })),
  };
  return pack(fields, arrays);
}

export function decodeTrialOutcome(bytes: Uint8Array): TrialOutcome {
  const { fields: f, arrays } = unpack<OutcomeFields>(bytes);
  return {
    trial: f.trial,
    status: f.status,
    seconds: f.seconds,
    ...(f.message ? { message: f.message } : {}),
    ...(f.instance ? { instance: f.instance } : {}),
    fits: f.fits.map((x) => ({
      model: x.model,
      raw: arrays[x.raw] as Float64Array,
      loss: x.loss ?? Number.POSITIVE_INFINITY,
      rounds: x.rounds,
      stopReason: x.stopReason,
    })),
  };
}
