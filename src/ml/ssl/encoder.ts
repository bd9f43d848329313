/**
 * The self-supervised encoder of the shared representation (the `ssl` phase): a masked-feature
 * denoising autoencoder over every usable column of a dataset.
 *
 * - Input/target: the featurized matrix seen through ./layout (standardized numerics, one-hot
 *   categoricals, missing = masked).
 * - Corruption: each feature of each training sample is masked with probability SSL_MASK_RATE
 *   (inputs zeroed, mask indicator set); the network reconstructs every present feature.
 * - Network (./mlp): input -> 64 ReLU -> 16 linear (the embedding) -> 64 ReLU -> output.
 * - Loss: squared reconstruction error per present (row, feature), averaged over those pairs; a
 *   categorical feature's error is the squared distance between its one-hot block and the
 *   reconstruction. Predicting the mean scores about 1 per numeric feature, 1 - Σ p² per
 *   categorical one (`training.valBaselineLoss` is that baseline on the validation rows).
 * - Training: Adam, minibatches drawn with replacement by a seeded Rng, learning rate on a cosine
 *   schedule, a fixed number of steps from `planEncoder` (bounded cost whatever the data size).
 *   A held-out validation sample, with a fixed mask, is scored every `evalEvery` steps.
 * Same data + same seed => bit-identical weights.
 *
 * Stored form (`SslEncoder`, plain JSON): the layout's statistics, the sizes, and every weight as
 * one base64 string of little-endian float32 (order in ./mlp). The embeddings of a stored encoder
 * and of the one just trained are identical (both run on the float32 weights).
 */
import type { FeatureMatrix, FeaturizerSpec } from "../featurize";
import { Rng } from "../random";
import { base64ToFloat32, float32ToBase64 } from "./base64";
import { compileLayout, describeFeatures, type Layout, plannedWidths, readRow, type SslFeature } from "./layout";
import { Adam, Batch, Net, type NetShape, paramCount } from "./mlp";

const SSL_HIDDEN = 64;
export const SSL_EMBEDDING = 16;
const SSL_MASK_RATE = 0.2;
const SSL_BATCH = 256;
const SSL_LEARNING_RATE = 3e-3;
/** Rows scored for validation: a tenth of the data, at most this many (none below 200 rows). */
const SSL_MAX_VAL_ROWS = 2000;
/** Step count: SSL_EPOCHS passes over the training rows, within [SSL_MIN_STEPS, SSL_MAX_STEPS]... */
const SSL_EPOCHS = 30;
const SSL_MIN_STEPS = 300;
const SSL_MAX_STEPS = 1500;
/**
 * ...and at most this many multiply-adds in total (wide data gets fewer steps, never below
 * SSL_MIN_STEPS_WIDE), which bounds the phase to a few seconds whatever the table's shape.
 */
const SSL_FLOP_BUDGET = 4e9;
const SSL_MIN_STEPS_WIDE = 100;
const SSL_MIN_BATCH = 32;
/** Validation points reported over a training (one every `evalEvery` steps, and at the end). */
const SSL_EVAL_POINTS = 20;

export interface SslStep {
  /** 1-based. */
  step: number;
  totalSteps: number;
  /** Mean minibatch loss since the previous validation point (this step included). */
  trainLoss: number;
  /** Validation loss, every `evalEvery` steps and at the last step; null otherwise or without validation rows. */
  valLoss: number | null;
}

export interface EncoderPlan {
  steps: number;
  batchSize: number;
  trainRows: number;
  valRows: number;
  evalEvery: number;
}

export interface SslEncoder {
  format: "ssl-encoder-v1";
  /** Width of the featurized matrix it reads (the representation featurizer's features). */
  numFeatures: number;
  /** Per featurizer feature: standardization or one-hot levels (see ./layout). */
  features: SslFeature[];
  /** Sizes: output/one-hot width D (input = D + numFeatures), hidden, embedding. */
  outputWidth: number;
  hidden: number;
  embedding: number;
  /** Base64 of little-endian float32: W1, b1, W2, b2, W3, b3, W4, b4 (see ./mlp). */
  weights: string;
  training: {
    seed: number;
    steps: number;
    batchSize: number;
    maskRate: number;
    trainRows: number;
    valRows: number;
    /** Mean minibatch loss over the last validation window. */
    trainLoss: number;
    valLoss: number | null;
    /** Validation loss of predicting each output's training mean (the trivial baseline). */
    valBaselineLoss: number | null;
  };
}

export interface TrainEncoderOptions {
  seed?: number;
  /** Embedding width (default SSL_EMBEDDING, the shared representation's). */
  embedding?: number;
}

/** Multiply-adds per training sample (forward + backward), for the cost bound. */
function costPerSample(D: number, F: number): number {
  return SSL_HIDDEN * (3 * D + 2 * F) + 6 * SSL_HIDDEN * SSL_EMBEDDING;
}

/**
 * How the encoder of a dataset trains, from its row count and representation featurizer alone:
 * null when there is nothing to encode (no usable feature, or fewer than 2 rows).
 * steps = clamp(ceil(SSL_EPOCHS × trainRows / batch), SSL_MIN_STEPS, SSL_MAX_STEPS), lowered to
 * fit SSL_FLOP_BUDGET (not below SSL_MIN_STEPS_WIDE): at most 1500 × 256 = 384k rows are seen,
 * and at most 4e9 multiply-adds are spent (about 2 s on this project's 2-core machine), whatever
 * the number of rows. Only tables of thousands of columns go past it, with batches of SSL_MIN_BATCH.
 */
export function planEncoder(rowCount: number, spec: FeaturizerSpec): EncoderPlan | null {
  const F = spec.features.length;
  if (F === 0 || rowCount < 2) return null;
  const valRows = rowCount >= 200 ? Math.min(SSL_MAX_VAL_ROWS, Math.floor(rowCount / 10)) : 0;
  const trainRows = rowCount - valRows;
  const D = plannedWidths(spec).reduce((a, b) => a + b, 0);
  // very wide tables: smaller batches, so that even SSL_MIN_STEPS_WIDE steps fit the budget
  const widest = Math.floor(SSL_FLOP_BUDGET / (SSL_MIN_STEPS_WIDE * costPerSample(D, F)));
  const batchSize = Math.min(SSL_BATCH, trainRows, Math.max(SSL_MIN_BATCH, widest));
  let steps = Math.min(SSL_MAX_STEPS, Math.max(SSL_MIN_STEPS, Math.ceil((SSL_EPOCHS * trainRows) / batchSize)));
  const affordable = Math.floor(SSL_FLOP_BUDGET / (batchSize * costPerSample(D, F)));
  steps = Math.max(SSL_MIN_STEPS_WIDE, Math.min(steps, affordable));
  return { steps, batchSize, trainRows, valRows, evalEvery: Math.max(1, Math.ceil(steps / SSL_EVAL_POINTS)) };
}

/** Train the encoder on `m` (the matrix of `spec` over the dataset), one yield per step. */
export function* trainEncoderSteps(spec: FeaturizerSpec, m: FeatureMatrix, opts: TrainEncoderOptions = {}): Generator<SslStep, SslEncoder, void> {
  const plan = planEncoder(m.numRows, spec);
  if (!plan) throw new Error("nothing to encode: no usable feature or fewer than 2 rows");
  if (m.numFeatures !== spec.features.length) throw new Error(`matrix has ${m.numFeatures} features, featurizer ${spec.features.length}`);
  const seed = opts.seed ?? 0;
  const features = describeFeatures(spec, m.data, m.numRows);
  const L = compileLayout(features);
  const shape: NetShape = { D: L.D, F: L.F, H: SSL_HIDDEN, E: opts.embedding ?? SSL_EMBEDDING };
  const net = new Net(shape);
  net.init(new Rng(seed));
  const { train, val } = holdOut(m.numRows, plan.valRows, seed);
  const B = plan.batchSize;
  const w = new Work(L, shape, B);

  // the output biases start at the training means: the loss starts at the trivial baseline
  const means = outputMeans(L, m.data, train);
  net.params.set(means, net.oB4);
  const valMask = fixedMask(val.length, L.F, seed);
  const valBaseline = val.length ? evaluate(null, means, L, m.data, val, valMask, w) : null;

  const grad = new Float64Array(net.params.length);
  const adam = new Adam(net.params.length);
  const rng = new Rng(seed ^ 0x55a1);
  const nTrain = train.length;
  const F = L.F;
  let windowSum = 0;
  let windowSteps = 0;
  let trainLoss = NaN;
  let valLoss: number | null = null;
  for (let step = 1; step <= plan.steps; step++) {
    for (let i = 0; i < B; i++) {
      readRow(L, m.data, train[rng.int(nTrain)], w.value, w.present, i * F);
      for (let j = i * F; j < i * F + F; j++) w.masked[j] = rng.next() < SSL_MASK_RATE ? 1 : 0;
    }
    w.batch.rows = B;
    w.setInputs(L, true);
    w.batch.forward(net, true);
    const { err, count } = w.score(L, null);
    grad.fill(0);
    if (count > 0) {
      w.batch.backward(net, grad);
      const progress = (step - 1) / plan.steps;
      const lr = SSL_LEARNING_RATE * (0.05 + 0.95 * 0.5 * (1 + Math.cos(Math.PI * progress)));
      adam.step(net.params, grad, lr, 1 / count);
    }
    windowSum += count > 0 ? err / count : 0;
    windowSteps++;
    trainLoss = windowSum / windowSteps;
    const evalNow = step % plan.evalEvery === 0 || step === plan.steps;
    const v = evalNow && val.length ? evaluate(net, null, L, m.data, val, valMask, w) : null;
    if (v !== null) valLoss = v;
    yield { step, totalSteps: plan.steps, trainLoss, valLoss: v };
    if (evalNow) {
      windowSum = 0;
      windowSteps = 0;
    }
  }
  return {
    format: "ssl-encoder-v1",
    numFeatures: L.F,
    features,
    outputWidth: L.D,
    hidden: SSL_HIDDEN,
    embedding: shape.E,
    weights: float32ToBase64(net.params),
    training: {
      seed,
      steps: plan.steps,
      batchSize: B,
      maskRate: SSL_MASK_RATE,
      trainRows: nTrain,
      valRows: val.length,
      trainLoss,
      valLoss,
      valBaselineLoss: valBaseline,
    },
  };
}

/**
 * Runs the network forward over the matrix in chunks of CHUNK rows, nothing masked, and hands
 * each chunk's work area to `visit` (first row index, row count).
 */
function forwardInChunks(
  encoder: SslEncoder,
  data: Float32Array,
  numRows: number,
  decode: boolean,
  visit: (w: Work, L: Layout, start: number, rows: number) => void,
): void {
  const { net, L } = decoded(encoder);
  checkWidth(encoder, data, numRows);
  const w = new Work(L, net.shape, CHUNK);
  for (let start = 0; start < numRows; start += CHUNK) {
    const R = Math.min(CHUNK, numRows - start);
    for (let i = 0; i < R; i++) readRow(L, data, start + i, w.value, w.present, i * L.F);
    w.batch.rows = R;
    w.setInputs(L, false);
    w.batch.forward(net, decode);
    visit(w, L, start, R);
  }
}

/** Embeddings of the rows of a featurized matrix [numRows x encoder.numFeatures] at the precision the network computes them (what the ONNX graph reproduces): row-major [numRows x embedding]. */
export function encodeRows64(encoder: SslEncoder, data: Float32Array, numRows: number): Float64Array {
  const E = encoder.embedding;
  const out = new Float64Array(numRows * E);
  forwardInChunks(encoder, data, numRows, false, (w, _L, start, R) => out.set(w.batch.z.subarray(0, R * E), start * E));
  return out;
}

/**
 * Per row: mean squared reconstruction error over its present features, nothing masked (the
 * loss's units; 0 for a row with no present feature). High values = rows unlike the data.
 */
export function reconstructionErrors(encoder: SslEncoder, data: Float32Array, numRows: number): Float64Array {
  const out = new Float64Array(numRows);
  forwardInChunks(encoder, data, numRows, true, (w, L, start, R) => w.score(L, out.subarray(start, start + R)));
  return out;
}

/**
 * The same errors split by featurizer feature: out[i * F + j] is feature j's squared error (its
 * one-hot block's, for a category) over row i's count of present features, 0 when j is missing.
 * A row's parts add up to its reconstructionErrors value (to rounding): explanations say which
 * columns the encoder fails to reconstruct.
 */
export function reconstructionErrorParts(encoder: SslEncoder, data: Float32Array, numRows: number): Float64Array {
  const F = encoder.numFeatures;
  const out = new Float64Array(numRows * F);
  forwardInChunks(encoder, data, numRows, true, (w, L, start, R) => {
    const o = w.batch.out;
    for (let i = 0; i < R; i++) {
      const row = out.subarray((start + i) * F, (start + i + 1) * F);
      let count = 0;
      for (let j = 0; j < F; j++) {
        const c = i * F + j;
        if (w.present[c] === 0) continue;
        count++;
        const from = i * L.D + L.offset[j];
        let e = 0;
        if (L.categorical[j] === 1) {
          const hot = from + w.value[c];
          for (let k = from; k < from + L.width[j]; k++) e += (o[k] - (k === hot ? 1 : 0)) ** 2;
        } else e = (o[from] - w.value[c]) ** 2;
        row[j] = e;
      }
      if (count > 0) for (let j = 0; j < F; j++) row[j] /= count;
    }
  });
  return out;
}

/** A stored encoder if `x` is a usable one (sizes and weights consistent), else null. */
export function parseEncoder(x: unknown): SslEncoder | null {
  const e = x as SslEncoder;
  if (!e || typeof e !== "object" || e.format !== "ssl-encoder-v1" || !Array.isArray(e.features)) return null;
  if (e.features.length !== e.numFeatures || !(e.hidden > 0) || !(e.embedding > 0) || typeof e.weights !== "string") return null;
  for (const f of e.features) {
    if (f?.kind === "numeric") {
      if (!Number.isFinite(f.mean) || !(f.std > 0)) return null;
    } else if (
      f?.kind !== "categorical" ||
      !Array.isArray(f.levels) ||
      f.levels.length === 0 ||
      !f.levels.every((c) => Number.isInteger(c) && c >= 0)
    )
      return null;
  }
  try {
    if (compileLayout(e.features).D !== e.outputWidth) return null;
    decoded(e);
  } catch {
    return null;
  }
  return e;
}

// ---------------------------------------------------------------------------------------------

/** Rows per forward pass when encoding or scoring. */
const CHUNK = 256;

const cache = new WeakMap<SslEncoder, { net: Net; L: Layout }>();

function decoded(encoder: SslEncoder): { net: Net; L: Layout } {
  let d = cache.get(encoder);
  if (!d) {
    const L = compileLayout(encoder.features);
    const shape: NetShape = { D: L.D, F: L.F, H: encoder.hidden, E: encoder.embedding };
    const w = base64ToFloat32(encoder.weights, paramCount(shape));
    if (!w || L.D !== encoder.outputWidth) throw new Error("stored encoder weights do not match its sizes");
    d = { net: new Net(shape, Float64Array.from(w)), L };
    cache.set(encoder, d);
  }
  return d;
}

function checkWidth(encoder: SslEncoder, data: Float32Array, numRows: number): void {
  if (data.length !== numRows * encoder.numFeatures) {
    throw new Error(`matrix of ${data.length} values is not ${numRows} rows x ${encoder.numFeatures} features`);
  }
}

/** A batch with the rows it holds as read (value/slot, present, masked per feature). */
class Work {
  readonly batch: Batch;
  readonly value: Float64Array;
  readonly present: Uint8Array;
  readonly masked: Uint8Array;
  constructor(L: Layout, shape: NetShape, capacity: number) {
    this.batch = new Batch(shape, capacity);
    this.value = new Float64Array(capacity * L.F);
    this.present = new Uint8Array(capacity * L.F);
    this.masked = new Uint8Array(capacity * L.F);
  }

  /** The sparse inputs: value / one-hot of present unmasked features, the mask indicator otherwise. */
  setInputs(L: Layout, useMask: boolean): void {
    const { idx, val } = this.batch;
    const F = L.F;
    for (let i = 0; i < this.batch.rows; i++) {
      for (let j = 0; j < F; j++) {
        const c = i * F + j;
        if (this.present[c] === 1 && !(useMask && this.masked[c] === 1)) {
          if (L.categorical[j] === 1) {
            idx[c] = L.offset[j] + this.value[c];
            val[c] = 1;
          } else {
            idx[c] = L.offset[j];
            val[c] = this.value[c];
          }
        } else {
          idx[c] = L.D + j;
          val[c] = 1;
        }
      }
    }
  }

  /**
   * Squared reconstruction error of the batch's outputs over present features (fills the batch's
   * dOut, 0 where nothing is scored). `perRow`: each row's mean error instead.
   */
  score(L: Layout, perRow: Float64Array | null): { err: number; count: number } {
    const { out, dOut } = this.batch;
    const { F, D } = L;
    let err = 0;
    let count = 0;
    for (let i = 0; i < this.batch.rows; i++) {
      let rowErr = 0;
      let rowCount = 0;
      for (let j = 0; j < F; j++) {
        const c = i * F + j;
        const from = i * D + L.offset[j];
        const to = from + L.width[j];
        if (this.present[c] === 0) {
          for (let k = from; k < to; k++) dOut[k] = 0;
          continue;
        }
        if (L.categorical[j] === 1) {
          const hot = from + this.value[c];
          for (let k = from; k < to; k++) {
            const d = out[k] - (k === hot ? 1 : 0);
            rowErr += d * d;
            dOut[k] = 2 * d;
          }
        } else {
          const d = out[from] - this.value[c];
          rowErr += d * d;
          dOut[from] = 2 * d;
        }
        rowCount++;
      }
      if (perRow) perRow[i] = rowCount > 0 ? rowErr / rowCount : 0;
      err += rowErr;
      count += rowCount;
    }
    return { err, count };
  }
}

/** Validation loss of the network, or of constant outputs `constant` (the trivial baseline). */
function evaluate(
  net: Net | null,
  constant: Float64Array | null,
  L: Layout,
  data: Float32Array,
  rows: Int32Array,
  mask: Uint8Array,
  w: Work,
): number {
  let err = 0;
  let count = 0;
  const F = L.F;
  const cap = w.batch.capacity;
  for (let start = 0; start < rows.length; start += cap) {
    const R = Math.min(cap, rows.length - start);
    for (let i = 0; i < R; i++) readRow(L, data, rows[start + i], w.value, w.present, i * F);
    w.masked.set(mask.subarray(start * F, (start + R) * F));
    w.batch.rows = R;
    if (net) {
      w.setInputs(L, true);
      w.batch.forward(net, true);
    } else for (let i = 0; i < R; i++) w.batch.out.set(constant!, i * L.D);
    const s = w.score(L, null);
    err += s.err;
    count += s.count;
  }
  return count > 0 ? err / count : 0;
}

/** Mean of each output over the rows where its feature is present (0 when never present). */
function outputMeans(L: Layout, data: Float32Array, rows: Int32Array): Float64Array {
  const sum = new Float64Array(L.D);
  const n = new Float64Array(L.F);
  const value = new Float64Array(L.F);
  const present = new Uint8Array(L.F);
  for (let i = 0; i < rows.length; i++) {
    readRow(L, data, rows[i], value, present, 0);
    for (let j = 0; j < L.F; j++) {
      if (present[j] === 0) continue;
      n[j]++;
      if (L.categorical[j] === 1) sum[L.offset[j] + value[j]]++;
      else sum[L.offset[j]] += value[j];
    }
  }
  for (let j = 0; j < L.F; j++) {
    for (let k = L.offset[j]; k < L.offset[j] + L.width[j]; k++) sum[k] = n[j] > 0 ? sum[k] / n[j] : 0;
  }
  return sum;
}

/** `nVal` validation rows (sorted, seeded selection sampling) and the rest for training. */
function holdOut(n: number, nVal: number, seed: number): { train: Int32Array; val: Int32Array } {
  const rng = new Rng(seed ^ 0x7a11);
  const val = new Int32Array(nVal);
  const train = new Int32Array(n - nVal);
  let need = nVal;
  let v = 0;
  let t = 0;
  for (let i = 0; i < n; i++) {
    if (need > 0 && rng.next() * (n - i) < need) {
      val[v++] = i;
      need--;
    } else train[t++] = i;
  }
  return { train, val };
}

/** The validation rows' mask, fixed for the whole training so validation points compare. */
function fixedMask(rows: number, F: number, seed: number): Uint8Array {
  const rng = new Rng(seed ^ 0x3a5c);
  return Uint8Array.from({ length: rows * F }, () => (rng.next() < SSL_MASK_RATE ? 1 : 0));
}
