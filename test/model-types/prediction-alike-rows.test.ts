/**
 * A prediction model's answer with rows grouped (runModel's `groupAlikeRows`, what batch inference
 * asks for) is the answer without: the same table (its JSON), csv and Parquet bytes and column
 * types, for each task, on rows with numbers, categories, missing values and many repeats.
 */
import { describe, expect, it } from "vitest";
import { createNodeSession } from "../../src/container/node-ort";
import type { ModelRuntime } from "../../src/inference/model-runtime";
import { encodeTable } from "../../src/inference/output";
import { runModel } from "../../src/inference/run-model";
import { readCsv } from "../../src/ingest/csv";
import { exportGbdtToOnnx } from "../../src/ml/onnx/export";
import { trainPredictionModel } from "../../src/ml/prediction/train";
import { FEATURIZER_FORMAT, parseModelArtifact } from "../../src/model-types/artifact";
import { ARTIFACT_FILES } from "../../src/storage/keys";

/** id, usage (number, some missing), plan (category, some missing), then the three labels. */
function csv(rows: number, seed: number): string {
  const lines = ["id,usage,plan,churned,spend,tier"];
  for (let i = 0; i < rows; i++) {
    const usage = (i * 37 + seed) % 50;
    const plan = ["basic", "pro", "team", ""][(i + seed) % 4];
    const missing = i % 11 === 0 ? "" : String(usage);
    const churned = usage < 15 || plan === "basic" ? "yes" : "no";
    const tier = ["low", "mid", "high"][Math.min(2, Math.floor(usage / 17))];
    lines.push(`${i},${missing},${plan},${churned},${(usage * 3.7 + plan.length).toFixed(2)},${tier}`);
  }
  return `${lines.join("\n")}\n`;
}

async function answers(label: string) {
  const utf8 = new TextEncoder();
  const train = (await readCsv(utf8.encode(csv(600, 0)))).frame;
  const r = trainPredictionModel(train, {
    labelColumn: label,
    inputColumns: ["usage", "plan"],
    params: { search: "off", max_rounds: 40, early_stopping_rounds: 0 },
  });
  const artifact = parseModelArtifact(
    JSON.stringify({
      format: FEATURIZER_FORMAT,
      model_type: "prediction",
      task: r.task,
      label_column: label,
      classes: r.classes,
      featurizer: r.featurizer,
      onnx: { input: "features", outputs: [], num_features: r.model.numFeatures },
    }),
  );
  const files: Record<string, Uint8Array> = {
    [ARTIFACT_FILES.onnx]: exportGbdtToOnnx(r.model),
    [ARTIFACT_FILES.gbdt]: utf8.encode(JSON.stringify(r.model)),
  };
  const session = await createNodeSession(files[ARTIFACT_FILES.onnx]);
  const read: string[] = [];
  const rt: ModelRuntime = {
    readFile: async (_v, name) => (read.push(name), files[name] ?? null),
    withSession: async (_k, _load, fn) => fn(session),
  };
  const frame = (await readCsv(utf8.encode(csv(3000, 5)))).frame;
  // a version id of its own per label: the parsed gbdt.json is kept per version id
  const version = { id: `alike-${label}`, version: 1, artifactKey: null };
  const whole = await runModel(rt, version, artifact, frame);
  expect(read).not.toContain(ARTIFACT_FILES.gbdt);
  const grouped = await runModel(rt, version, artifact, frame, { groupAlikeRows: true });
  // the trees (gbdt.json) are what groups the rows
  expect(read).toContain(ARTIFACT_FILES.gbdt);
  await session.release();
  return { whole, grouped };
}

const forms = (a: Awaited<ReturnType<typeof runModel>>) => ({
  json: JSON.stringify(a.table),
  csv: encodeTable(a.table, "csv", { columnTypes: a.columnTypes }).body,
  parquet: encodeTable(a.table, "parquet", { columnTypes: a.columnTypes }).body,
  columnTypes: a.columnTypes,
});

describe("a prediction answer with rows grouped", () => {
  for (const [task, label] of [
    ["binary", "churned"],
    ["multiclass", "tier"],
    ["regression", "spend"],
  ] as const) {
    it(`is the ungrouped answer, byte for byte (${task})`, async () => {
      const { whole, grouped } = await answers(label);
      expect(whole.table.id).toHaveLength(3000);
      expect(forms(grouped)).toEqual(forms(whole));
    });
  }
});
