/**
 * Training describes each column of the table once before its first step: the check that the
 * model has features and the shared representation's build share the table's featurizer (on tens
 * of millions of rows each description is a pass over a column's rows).
 */
import { describe, expect, it } from "vitest";
import { readCsv } from "../../src/ingest/csv";
import type { Frame } from "../../src/ml/frame";
import { preparePredictionSteps } from "../../src/ml/prediction/model";
import type { TrainEvent } from "../../src/model-types/contract";
import { modelTypes } from "../../src/model-types/registry";

/** x (numeric), plan (category), y (numeric), and the row id the reader adds. */
async function frame(): Promise<Frame> {
  const lines = ["x,plan,y"];
  for (let i = 0; i < 300; i++) lines.push(`${(i * 37) % 100},${["a", "b", "c"][i % 3]},${((i * 37) % 100) * 2 + (i % 3)}`);
  return (await readCsv(new TextEncoder().encode(`${lines.join("\n")}\n`))).frame;
}

describe("a table's columns are described once", () => {
  it("by a first prediction model: each column described and profiled, then x and plan binned", async () => {
    const f = await frame();
    const columns = f.columns.length;
    const steps = preparePredictionSteps(f, { labelColumn: "y", task: "regression", params: {} });
    let columnSteps = 0;
    for (let r = steps.next(); !r.done; r = steps.next()) columnSteps++;
    expect(columnSteps).toBe(columns + columns + 2);
  });

  it("by a first model of another type: each column described and profiled before its first step", async () => {
    const f = await frame();
    const columns = f.columns.length;
    const run = modelTypes.find("anomaly")!.training.run({
      task: { model_type: "anomaly", model_name: "m", label_column: null, input_columns: null, params: {} },
      takeFrame: () => f,
      representation: null,
      sslSteps: 0,
      now: () => 0,
      onStage: () => {},
      trialPool: null,
    });
    let alive = 0;
    for (let r = run.next(); !r.done; r = run.next()) {
      const e: TrainEvent = r.value;
      if (e.kind === "step") break;
      if (e.kind === "alive") alive++;
    }
    expect(alive).toBe(columns + columns);
  });
});
