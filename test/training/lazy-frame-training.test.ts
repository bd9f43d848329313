import { describe, expect, it } from "vitest";
import { runTraining } from "../../src/container/run-training";
import type { TrainingIO } from "../../src/container/training-io";
import type { TrainingTask } from "../../src/container/wire";
import { decodeFrame, encodeFrame } from "../../src/ingest/codec";
import { readCsv } from "../../src/ingest/csv";
import { seededRandom } from "../seeded-random";

type FrameLoadOptions = NonNullable<Parameters<TrainingIO["loadFrame"]>[0]>;

async function frameBytes(rows: number): Promise<Uint8Array> {
  const r = seededRandom(8);
  const lines = ["amount,score,plan,active,day,y"];
  for (let i = 0; i < rows; i++) {
    const score = r() * 2 - 1;
    const plan = Math.floor(r() * 4);
    const active = r() < 0.5;
    const y = score + plan / 3 + (active ? 0.5 : 0) + r() > 1.3 ? "yes" : "no";
    const day = `2024-0${1 + Math.floor(r() * 9)}-1${Math.floor(r() * 9)}`;
    lines.push([(r() * 500).toFixed(2), score, ["a", "b", "c", "d"][plan], active, day, y].join(","));
  }
  return encodeFrame((await readCsv(new TextEncoder().encode(`${lines.join("\n")}\n`))).frame);
}

/** Trains a prediction model on the frame's bytes, decoded as the runner asks (or eagerly when `eager`). */
async function train(bytes: Uint8Array, eager: boolean) {
  const asked: FrameLoadOptions[] = [];
  const artifacts: Record<string, string> = {};
  const io: TrainingIO = {
    loadFrame: async (opts = {}) => {
      asked.push(opts);
      return decodeFrame(bytes, eager ? {} : opts);
    },
    loadRepresentation: async () => null,
    saveRepresentation: async (json) => void (artifacts.representation = json),
    saveArtifact: async (file, b) => void (artifacts[file] = new TextDecoder().decode(b)),
    report: async () => {},
  };
  const task: TrainingTask = {
    model_name: "m",
    version_number: 1,
    model_type: "prediction",
    label_column: "y",
    input_columns: null,
    params: { max_rounds: 30 },
  };
  const out = await runTraining(task, io);
  return { asked, artifacts, metrics: out.metrics };
}

describe("a prediction model trained on a frame decoded lazily", () => {
  it("is asked for lazily by the runner and is the model of the eagerly decoded frame", async () => {
    const bytes = await frameBytes(600);
    const lazy = await train(bytes, false);
    const eager = await train(bytes, true);
    expect(lazy.asked).toEqual([{ lazy: true }]);
    expect(lazy.metrics).toEqual(eager.metrics);
    expect(lazy.artifacts["gbdt.json"]).toBe(eager.artifacts["gbdt.json"]);
    expect(lazy.artifacts.representation).toBe(eager.artifacts.representation);
  });
});
