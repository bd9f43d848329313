/**
 * A new model type is one module and one registry line: a toy type ("distance": how far each row
 * lies from the training rows' mean, in summed absolute feature differences), written here against
 * the contract and added to the product's list, goes through request validation, the training
 * runner, inference in the trainer's ONNX runtime, explanations and the API document — none of
 * which names it.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { explainSummary, paramsDescription } from "../../src/api/schemas/model-type-docs";
import { createNodeSession } from "../../src/container/node-ort";
import { runTraining } from "../../src/container/run-training";
import type { TrainingIO } from "../../src/container/training-io";
import type { TrainingTask } from "../../src/container/wire";
import { InvalidInput } from "../../src/core/errors";
import type { ModelRuntime, StoredVersion } from "../../src/inference/model-runtime";
import { loadArtifact, runModel } from "../../src/inference/run-model";
import { readCsv } from "../../src/ingest/csv";
import { MlInputError } from "../../src/ml/errors";
import { applyFeaturizer, buildFeaturizer } from "../../src/ml/featurize";
import { cellValue, type Frame } from "../../src/ml/frame";
import { GraphBuilder } from "../../src/ml/onnx/graph";
import { appendMetadata, DataType } from "../../src/ml/onnx/onnx-proto";
import { UNSUPERVISED_FORMAT, type UnsupervisedArtifact } from "../../src/model-types/artifact";
import type { ModelTypeModule, TrainEvent, TrainedModel, TrainInput } from "../../src/model-types/contract";
import { MODEL_TYPE_MODULES, ModelTypeRegistry } from "../../src/model-types/registry";
import { typeConfig } from "../../src/model-types/train-config";
import { loadExplainer } from "../../src/models/explain-engines";

// ── The toy type: the whole of what a new type needs ───────────────────────────────────────────

const MEANS_FILE = "summary.json" as const;

function* trainDistance(input: TrainInput): Generator<TrainEvent, TrainedModel, void> {
  const frame = input.takeFrame();
  const featurizer = buildFeaturizer(frame, { inputColumns: input.task.input_columns ?? undefined });
  if (featurizer.features.length === 0) throw new MlInputError("no usable feature columns");
  const m = applyFeaturizer(featurizer, frame);
  const F = m.numFeatures;
  const means = new Array<number>(F).fill(0);
  for (let i = 0; i < m.numRows; i++) {
    for (let j = 0; j < F; j++) means[j] += m.data[i * F + j] / m.numRows;
    yield { kind: "step", step: i + 1, total: m.numRows, phase: null, point: null };
  }
  const scale = Number(input.task.params.scale ?? 1);
  return {
    artifact: {
      format: UNSUPERVISED_FORMAT,
      featurizer,
      head: { means, scale },
      onnx: { input: "features", num_features: F },
      files: [],
    },
    graph: (metadata) => appendMetadata(distanceGraph(F, means, scale), metadata),
    files: [],
    metrics: {},
    output: { mean_of_first_feature: means[0] },
    summary: { means },
  };
}

/** distance = scale · Σ_j |x_j − mean_j|, in double. */
function distanceGraph(F: number, means: number[], scale: number): Uint8Array {
  const g = new GraphBuilder();
  const x = g.castToDouble(g.input("features", DataType.FLOAT, ["N", F]));
  const away = g.op("Abs", [g.op("Sub", [x, g.double(means, [1, F])])]);
  const sum = g.op("ReduceSum", [away, g.int64([1])], [{ name: "keepdims", int: 0 }]);
  g.output(g.op("Mul", [sum, g.double([scale], [])]), "distance", DataType.DOUBLE, ["N"]);
  return g.finish({ name: "distance", docString: "toy", metadata: {} });
}

const distance: ModelTypeModule<UnsupervisedArtifact, "distance"> = {
  name: "distance",
  params: { schema: z.object({ scale: z.number().gt(0).optional() }).strict(), defaults: { scale: 1 } },
  request: {
    label: null,
    check(profile, _rows, req) {
      const missing = (req.input_columns ?? []).filter((c) => !profile.some((p) => p.name === c));
      if (missing.length) throw InvalidInput.field(["input_columns"], `Columns not in the dataset: ${missing.join(", ")}`, missing);
    },
  },
  training: { run: trainDistance },
  answer: {
    valuesPerRow: () => 2,
    chunked: true,
    table: (_a, { ids, outputs }) => ({ id: ids, distance: ids.length ? Array.from(outputs.distance.data) : [] }),
    columnTypes: () => ({ distance: "double" }),
  },
  explain: {
    async load(a, file) {
      const stored = (await file(MEANS_FILE)) as { means: number[] } | null;
      if (!stored) return null;
      const scale = Number(a.head.scale);
      return (frame: Frame, rows: number[]) => {
        const m = applyFeaturizer(a.featurizer, frame);
        return rows.map((r) => ({
          feature_contributions: a.featurizer.features.map((f, j) => ({
            column: f.source,
            value: cellValue(frame.columns.find((c) => c.name === f.source)!, r) as number,
            contribution: scale * Math.abs(m.data[r * m.numFeatures + j] - stored.means[j]),
          })),
        }));
      };
    },
  },
  docs: { params: "Distance: scale (1)", columns: "Distance: `distance`", metrics: null, summary: "distance the features' means" },
};

/** The one registry line. */
const registry = new ModelTypeRegistry([...MODEL_TYPE_MODULES, distance]);

// ── The service's own machinery, none of which names the toy ───────────────────────────────────

async function table(): Promise<Frame> {
  const lines = ["id,a,b"];
  for (let i = 0; i < 40; i++) lines.push(`${i},${i % 4},${(i * 7) % 10}`);
  return (await readCsv(new TextEncoder().encode(`${lines.join("\n")}\n`))).frame;
}

function memoryIO(frame: Frame) {
  const files = new Map<string, Uint8Array>();
  const io: TrainingIO = {
    loadFrame: async () => frame,
    loadRepresentation: async () => null,
    saveRepresentation: async () => {},
    saveArtifact: async (file, bytes) => void files.set(file, bytes),
    report: async () => {},
  };
  return { io, files };
}

/** The trainer's model runtime over the files a run stored. */
function runtimeOver(files: Map<string, Uint8Array>): ModelRuntime {
  return { readFile: async (_v, file) => files.get(file) ?? null, withSession: async (_key, load, fn) => fn(await createNodeSession(await load())) };
}

const task = (params: Record<string, unknown>): TrainingTask => ({
  model_name: "toy",
  version_number: 1,
  model_type: "distance",
  label_column: null,
  input_columns: null,
  params,
});

describe("a model type added in one module and one registry line", () => {
  it("validates its params with its own schema and checks its request", () => {
    expect(typeConfig(distance, { params: { scale: 2 }, label_column: "ignored" })).toEqual({
      model_type: "distance",
      label_column: null,
      input_columns: null,
      params: { scale: 2 },
    });
    expect(() => typeConfig(distance, { params: { scael: 2 } })).toThrow(InvalidInput);
    try {
      typeConfig(distance, { params: { scael: 2 } });
    } catch (e) {
      expect((e as InvalidInput).issues[0].message).toBe("Unknown parameter for a distance model; its parameters are: scale");
    }
    const profile = [{ name: "a" }] as never;
    expect(() => distance.request.check(profile, 10, { label_column: null, input_columns: ["zz"], params: {} })).toThrow(/zz/);
  });

  it("trains through the runner, answers through inference and explains through the explain dispatch", async () => {
    const frame = await table();
    const { io, files } = memoryIO(frame);
    const out = await runTraining(task({ scale: 2 }), io, { registry, reportEveryMs: 0 });
    expect(out.model_type).toBe("distance");
    expect(out.mean_of_first_feature).toBeCloseTo(1.5, 10);
    expect([...files.keys()]).toEqual(["model.onnx", "featurizer.json", "summary.json"]);

    const version: StoredVersion = { id: crypto.randomUUID(), version: 1, artifactKey: "toy/" };
    const rt = runtimeOver(files);
    const artifact = await loadArtifact(rt, version);
    const answer = await runModel(rt, version, artifact, frame, { registry });
    expect(Object.keys(answer.table)).toEqual(["id", "distance"]);
    // row 0: a = 0, b = 0; means 1.5 and 4.5
    expect(answer.table.distance[0]).toBeCloseTo(2 * (1.5 + 4.5), 6);
    expect(answer.columnTypes).toEqual({ distance: "double" });

    const stored = (key: string) => files.get(key.replace(/^toy\//, ""));
    const bucket = { get: async (key: string) => (stored(key) ? { json: async () => JSON.parse(new TextDecoder().decode(stored(key))) } : null) };
    const explain = await loadExplainer(bucket as never, "toy/", artifact, registry);
    const [row0] = explain(frame, [0]);
    expect(row0.feature_contributions.map((c) => c.column)).toEqual(["a", "b"]);
    expect(row0.feature_contributions.reduce((s, c) => s + c.contribution, 0)).toBeCloseTo(answer.table.distance[0] as number, 6);
  });

  it("appears in the API document's lists", () => {
    expect(paramsDescription(registry)).toMatch(/Causal \(label_column is the outcome\): .*\. Distance: scale \(1\)$/);
    expect(explainSummary(registry)).toContain("prediction, causal, anomaly, clustering and distance models");
  });

  it("is not a type the product has", () => {
    expect(MODEL_TYPE_MODULES.map((m) => m.name)).not.toContain("distance");
  });
});
