import { describe, expect, it } from "vitest";
import { runTraining } from "../../src/container/run-training";
import type { TrainingIO, TrainingReport } from "../../src/container/training-io";
import type { TrainingTask } from "../../src/container/wire";
import { MAX_POINTS_PER_REPORT } from "../../src/core/limits";
import { readCsv } from "../../src/ingest/csv";
import { JobCanceledError } from "../../src/jobs/errors";
import type { Frame } from "../../src/ml/frame";

async function frame(rows = 300): Promise<Frame> {
  const lines = ["x,plan,y"];
  for (let i = 0; i < rows; i++) lines.push(`${(i * 37) % 100},${["a", "b", "c"][i % 3]},${((i * 37) % 100) * 2 + (i % 3)}`);
  return (await readCsv(new TextEncoder().encode(`${lines.join("\n")}\n`))).frame;
}

/** An in-memory TrainingIO that records every call. */
function memoryIO(f: Frame, opts: { cancelAtReport?: number; representation?: string | null; onReport?: () => void; loadMs?: number } = {}) {
  const log = { reports: [] as TrainingReport[], artifacts: [] as string[], representation: opts.representation ?? null, reportsAfterCancel: 0 };
  let canceled = false;
  const io: TrainingIO = {
    loadFrame: async () => (opts.loadMs ? new Promise((r) => setTimeout(() => r(f), opts.loadMs)) : f),
    loadRepresentation: async () => log.representation,
    saveRepresentation: async (json) => void (log.representation = json),
    saveArtifact: async (file) => void log.artifacts.push(file),
    report: async (r) => {
      if (canceled) log.reportsAfterCancel++;
      log.reports.push(r);
      opts.onReport?.();
      if (opts.cancelAtReport !== undefined && log.reports.length >= opts.cancelAtReport) {
        canceled = true;
        throw new JobCanceledError();
      }
    },
  };
  return { io, log };
}

const task = (params: Record<string, unknown> = {}): TrainingTask => ({
  model_name: "m",
  version_number: 1,
  model_type: "prediction",
  label_column: "y",
  input_columns: null,
  params,
});

describe("runTraining", () => {
  it("stops at the report that learns of the cancel: nothing stored, no further work reported", async () => {
    const { io, log } = memoryIO(await frame(), { cancelAtReport: 4 });
    // every step reports (reportEveryMs 0), so the cancel lands mid-run
    await expect(runTraining(task({ max_rounds: 300, early_stopping_rounds: 0 }), io, { reportEveryMs: 0 })).rejects.toBeInstanceOf(JobCanceledError);
    expect(log.reports).toHaveLength(4);
    expect(log.reportsAfterCancel).toBe(0);
    expect(log.artifacts).toEqual([]);
    expect(log.representation).toBeNull();
  });

  it("stores no representation when the cancel lands while the shared encoder trains", async () => {
    // past the start and the heartbeats of the columns' checks and profile (a column each), into the encoder's steps
    const { io, log } = memoryIO(await frame(), { cancelAtReport: 16 });
    const embedding = { ...task(), model_type: "embedding", label_column: null };
    await expect(runTraining(embedding, io, { reportEveryMs: 0 })).rejects.toBeInstanceOf(JobCanceledError);
    expect(log.reports.at(-1)?.current_phase).toBe("ssl");
    expect(log.artifacts).toEqual([]);
    expect(log.representation).toBeNull();
  });

  it("sends the heartbeat while the table loads", async () => {
    const { io, log } = memoryIO(await frame(), { loadMs: 200 });
    await runTraining(task({ max_rounds: 3, search: "off" }), io, { reportEveryMs: 10 });
    const firstStep = log.reports.findIndex((r) => (r.current_step ?? 0) > 0);
    // empty reports (a heartbeat: nothing new to say) came before the first step
    expect(log.reports.slice(0, firstStep).filter((r) => Object.keys(r).length === 0).length).toBeGreaterThan(2);
  });

  it("sends the heartbeat between the columns it profiles and bins before the first step", async () => {
    // every clock reading is a second later: each column is "long"
    let t = 0;
    const { io, log } = memoryIO(await frame());
    await runTraining(task({ max_rounds: 3, search: "off" }), io, { reportEveryMs: 500, now: () => (t += 1000) });
    const firstStep = log.reports.findIndex((r) => (r.current_step ?? 0) > 0);
    // 3 columns described (once: the inputs' check and the representation share it), 3 profiled
    // and 2 features binned: a heartbeat after each
    expect(log.reports.slice(0, firstStep).filter((r) => Object.keys(r).length === 0).length).toBeGreaterThanOrEqual(8);
  });

  it("sends the heartbeat between the columns it checks and profiles, for the other model types too", async () => {
    let t = 0;
    const { io, log } = memoryIO(await frame());
    await runTraining({ ...task(), model_type: "anomaly", label_column: null }, io, { reportEveryMs: 500, now: () => (t += 1000) });
    const firstStep = log.reports.findIndex((r) => (r.current_step ?? 0) > 0);
    // 3 columns described (once: the data's check and the representation share it) and 3 profiled
    expect(log.reports.slice(0, firstStep).filter((r) => Object.keys(r).length === 0).length).toBeGreaterThanOrEqual(6);
  });

  it(`never sends more than ${MAX_POINTS_PER_REPORT} metric points in one report`, async () => {
    const { io, log } = memoryIO(await frame(60));
    // one model's rounds: a point each (a search reports a point per trial)
    const out = await runTraining(task({ max_rounds: 1200, early_stopping_rounds: 0, search: "off" }), io, { reportEveryMs: 1e9 });
    expect(out.rounds).toBe(1200);
    const sizes = log.reports.map((r) => r.metrics?.length ?? 0);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(MAX_POINTS_PER_REPORT);
    expect(sizes.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1200);
  });

  it("builds and stores the representation once; the next run reuses it and reports no ssl step", async () => {
    const f = await frame();
    const first = memoryIO(f);
    const a = await runTraining(task({ max_rounds: 20 }), first.io);
    expect(a.representation).toBe("built");
    expect(first.log.artifacts).toEqual(["model.onnx", "featurizer.json", "gbdt.json"]);
    expect(first.log.representation).not.toBeNull();

    const second = memoryIO(f, { representation: first.log.representation });
    const b = await runTraining(task({ max_rounds: 20 }), second.io);
    expect(b.representation).toBe("reused");
    expect(b.metrics).toEqual(a.metrics);
  });

  it("trains the shared encoder (the ssl phase) for the first model that reads it, and stores it for the next", async () => {
    const f = await frame();
    // a prediction model does not read it: no ssl phase, and the stored representation has none
    const first = memoryIO(f);
    const a = await runTraining(task({ max_rounds: 20 }), first.io);
    expect(a.ssl_steps).toBe(0);
    expect(first.log.reports.some((r) => r.current_phase === "ssl")).toBe(false);
    expect(JSON.parse(first.log.representation!).encoder).toBeNull();

    const embedding = { ...task(), model_type: "embedding", label_column: null };
    const second = memoryIO(f, { representation: first.log.representation });
    const b = await runTraining(embedding, second.io);
    expect(b.representation).toBe("built");
    expect(b.ssl_steps).toBeGreaterThan(0);
    expect(second.log.reports.some((r) => r.current_phase === "ssl")).toBe(true);
    expect(b.encoder).toBe("shared");
    expect(JSON.parse(second.log.representation!).encoder).not.toBeNull();

    const third = memoryIO(f, { representation: second.log.representation });
    const c = await runTraining(embedding, third.io);
    expect(c.representation).toBe("reused");
    expect(c.ssl_steps).toBe(0);
    expect(third.log.reports.some((r) => r.current_phase === "ssl")).toBe(false);
  });

  it("reports total_steps as max rounds, and a bad label before any work", async () => {
    const { io, log } = memoryIO(await frame());
    // one model (the search counts its trials instead: the last test)
    await runTraining(task({ max_rounds: 7, search: "off" }), io, { reportEveryMs: 0 });
    expect(log.reports.find((r) => r.total_steps !== undefined)?.total_steps).toBe(7);
    const bad = memoryIO(await frame());
    await expect(runTraining({ ...task(), label_column: "nope" }, bad.io)).rejects.toThrow(/label column "nope" not found/);
    expect(bad.log.reports.some((r) => r.current_step !== undefined && r.current_step > 0)).toBe(false);
    expect(bad.log.representation).toBeNull();
  });

  it("stops boosting at params.time_budget_s on the job's clock and reports stop_reason time_budget", async () => {
    // every report "takes" 100 ms of the injected clock: no real time is measured
    let t = 0;
    const f = await frame();
    const { io } = memoryIO(f, { onReport: () => void (t += 100) });
    const out = await runTraining(task({ max_rounds: 500, early_stopping_rounds: 0, time_budget_s: 1, search: "off" }), io, {
      reportEveryMs: 0,
      now: () => t,
    });
    expect(out.stop_reason).toBe("time_budget");
    expect(out.time_budget_s).toBe(1);
    expect(out.rounds_run).toBeGreaterThanOrEqual(1);
    expect(out.rounds_run).toBeLessThan(20);
    expect(out.rounds).toBe(out.rounds_run);

    const dflt = await runTraining(task({ max_rounds: 5, search: "off" }), memoryIO(f).io);
    expect(dflt.stop_reason).toBe("max_rounds");
    expect(dflt.time_budget_s).toBe(300);
  });

  it("searches by default: the output lists the trials, the best and the ensemble; each trial reports the best loss so far", async () => {
    const { io, log } = memoryIO(await frame());
    const out = await runTraining(task({ max_trials: 5 }), io, { reportEveryMs: 0 });
    const search = out.search as { method: string; instances: number; trials: { trial: number; score: number; status: string }[]; best: number };
    expect(search.method).toBe("cross_validation");
    expect(search.instances).toBe(1);
    expect(search.trials.length).toBeGreaterThan(1);
    expect(search.trials.map((t) => t.trial)).toEqual(search.trials.map((_, i) => i));
    // a point per trial, nothing else (a prediction model has no ssl phase)
    const points = log.reports.flatMap((r) => r.metrics ?? []);
    expect(points.length).toBe(search.trials.length);
    expect(points.at(-1)!.val_loss).toBeCloseTo(Math.min(...search.trials.filter((t) => t.status === "completed").map((t) => t.score)), 10);
  });

  it("reports the finetune phase at step 0, before the first trial or round ends", async () => {
    const { io, log } = memoryIO(await frame());
    await runTraining(task({ max_trials: 2 }), io, { reportEveryMs: 0 });
    expect(log.reports.find((r) => r.current_phase !== undefined)).toMatchObject({ current_phase: "finetune", current_step: 0, total_steps: 2 });
  });
});
