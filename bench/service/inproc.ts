/**
 * Our inference work without the service around it: the model's own artifacts (downloaded from
 * the service, GET /models/{id}/versions/1/artifact), run in this Node process on the same CSV
 * text the benchmark sends — readCsv (rawText, as the Worker reads inference files) →
 * applyFeaturizer → onnxruntime-web (wasm, one thread) → the response table → JSON text. These
 * are the steps of src/models/infer.ts (inferSync/predict) minus HTTP, multipart, auth, D1 and the
 * job record, so the gap between this and the HTTP figure is what the service path adds.
 */
import { performance } from "node:perf_hooks";
import { readCsv } from "../../src/ingest/csv";
import { applyFeaturizer } from "../../src/ml/featurize";
import { cellValue } from "../../src/ml/frame";
import type { PredictionArtifact } from "../../src/model-types/artifact";
import { FEATURIZER_FORMAT, parseModelArtifact } from "../../src/model-types/artifact";
import { createSession, type OrtSession, runFeatures } from "../../test/ml/helpers/ort-node";
import { type Stats, stats } from "./client";

export interface InprocResult {
  total: Stats;
  /** p50 of each step, ms. */
  steps: { parse: number; featurize: number; ort: number; respond: number };
}

export class Inproc {
  private constructor(
    private readonly artifact: PredictionArtifact,
    private readonly session: OrtSession,
  ) {}

  static async create(onnx: Uint8Array, featurizerJson: string): Promise<Inproc> {
    const artifact = parseModelArtifact(featurizerJson);
    if (artifact.format !== FEATURIZER_FORMAT) throw new Error("the service benchmark serves prediction models");
    return new Inproc(artifact, await createSession(onnx));
  }

  /** One prediction, the response body as text, and the time of each step (ms). */
  async once(bytes: Uint8Array): Promise<{ text: string; t: number[] }> {
    const t0 = performance.now();
    const { frame } = await readCsv(bytes, { rawText: true });
    const t1 = performance.now();
    const m = applyFeaturizer(this.artifact.featurizer, frame);
    const t2 = performance.now();
    const regression = this.artifact.task === "regression";
    const out = await runFeatures(this.session, m.data, m.numRows, m.numFeatures);
    const t3 = performance.now();
    const n = frame.rowCount;
    const idCol = frame.columns.find((c) => c.name === "id") ?? frame.columns[0];
    const table: Record<string, unknown[]> = { id: Array.from({ length: n }, (_, i) => cellValue(idCol, i)) };
    if (regression) {
      table.prediction = Array.from(out.prediction.data as Float64Array, (x) => x);
      table.prediction_prob = new Array(n).fill(null);
    } else {
      const classes = this.artifact.classes ?? [];
      const C = classes.length;
      const probs = out.probabilities.data as Float32Array;
      const label = Array.from(out.label.data as ArrayLike<bigint | number>, Number);
      table.prediction = label.map((k) => classes[k] ?? String(k));
      table.prediction_prob = label.map((k, i) => round(probs[i * C + k]));
      classes.forEach((cls, k) => (table[`prob_${cls}`] = Array.from({ length: n }, (_, i) => round(probs[i * C + k]))));
    }
    const text = JSON.stringify({ job_id: "x", status: "succeeded", latency_ms: 0, data: table });
    const t4 = performance.now();
    return { text, t: [t4 - t0, t1 - t0, t2 - t1, t3 - t2, t4 - t3] };
  }

  async measure(csv: string, calls: number, warmup: number): Promise<InprocResult> {
    const bytes = new TextEncoder().encode(csv);
    for (let i = 0; i < warmup; i++) await this.once(bytes);
    const cols: number[][] = [[], [], [], [], []];
    for (let i = 0; i < calls; i++) {
      const { t } = await this.once(bytes);
      t.forEach((x, k) => cols[k].push(x));
    }
    const p50 = (k: number) => stats(cols[k]).p50;
    return { total: stats(cols[0]), steps: { parse: p50(1), featurize: p50(2), ort: p50(3), respond: p50(4) } };
  }
}

const round = (x: number) => Number(x.toPrecision(7));
