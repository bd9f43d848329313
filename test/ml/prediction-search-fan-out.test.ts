/**
 * The model search with its trials on a pool of instances (src/ml/prediction/search/fan-out.ts):
 * here a pool in this process that goes through the same bytes as the trainer's (the rows and
 * each outcome encoded and decoded), its instances taking turns between boosting rounds.
 */
import { describe, expect, it } from "vitest";
import type { Frame } from "../../src/ml/frame";
import type { PredictionModelResult } from "../../src/ml/prediction/model";
import { decodeSearchData, decodeTrialOutcome, encodeSearchData, encodeTrialOutcome } from "../../src/ml/prediction/search/bytes";
import type { TrialPool } from "../../src/ml/prediction/search/fan-out";
import type { FoldPlan } from "../../src/ml/prediction/search/folds";
import { runTrial, type SearchRows, type TrialOutcome, type TrialSpec } from "../../src/ml/prediction/search/trial";
import { type TrainingStep, trainPredictionModel, trainPredictionModelSteps } from "../../src/ml/prediction/train";
import { Rng } from "../../src/ml/random";

function frame(n = 300, seed = 4): Frame {
  const rng = new Rng(seed);
  const col = (name: string, values: Float64Array) => ({ name, kind: "numeric" as const, storage: "numeric" as const, values });
  const x = Float64Array.from({ length: n }, () => rng.next());
  const z = Float64Array.from({ length: n }, () => rng.next());
  const y = Float64Array.from(x, (v, i) => (Math.sin(6 * v) + z[i] + 0.3 * rng.next() > 1 ? 1 : 0));
  return { rowCount: n, columns: [col("x", x), col("z", z), col("y", y)] };
}

/** Runs trials "elsewhere": from the encoded rows, one boosting round per turn of the event loop. */
class BytesPool implements TrialPool {
  readonly started: TrialSpec[] = [];
  private bytes: Uint8Array | null = null;
  private done: TrialOutcome[] = [];
  private wake: (() => void) | null = null;
  closed = false;
  private inFlight = 0;
  maxInFlight = 0;

  constructor(
    readonly instances: number,
    private readonly failTrial: number | null = null,
    private readonly refuse = false,
  ) {}

  async open(data: SearchRows, plan: FoldPlan) {
    this.bytes = encodeSearchData(data, plan);
    return !this.refuse;
  }

  async submit(spec: TrialSpec) {
    this.started.push(spec);
    this.maxInFlight = Math.max(this.maxInFlight, ++this.inFlight);
    const slot = this.started.length % this.instances;
    void this.run(JSON.parse(JSON.stringify(spec)) as TrialSpec, `instance-${slot}`);
  }

  private async run(spec: TrialSpec, instance: string) {
    const { data, plan } = decodeSearchData(this.bytes!);
    let outcome: TrialOutcome;
    if (spec.trial === this.failTrial) outcome = { trial: spec.trial, fits: [], status: "failed", seconds: 0, message: "out of memory" };
    else {
      const run = runTrial(data, plan, spec, () => performance.now());
      let r = run.next();
      for (; !r.done; r = run.next()) await new Promise((res) => setImmediate(res));
      outcome = decodeTrialOutcome(encodeTrialOutcome({ ...r.value, instance }));
    }
    this.done.push(outcome);
    this.wake?.();
  }

  async settled(limitMs: number) {
    if (this.done.length === 0) await new Promise<void>((res) => ((this.wake = res), setTimeout(res, Math.min(limitMs, 60_000))));
    const out = this.done;
    this.done = [];
    this.inFlight -= out.length;
    return out;
  }

  async close() {
    this.closed = true;
  }
}

/** Drives the training as the trainer's runner does: awaits each wait. */
async function train(pool: TrialPool, params: Record<string, unknown>): Promise<{ result: PredictionModelResult; steps: TrainingStep[] }> {
  const gen = trainPredictionModelSteps(frame(), { labelColumn: "y", params, trialPool: pool });
  const steps: TrainingStep[] = [];
  for (;;) {
    const r = gen.next();
    if (r.done) return { result: r.value, steps };
    if (r.value.phase === "wait") await r.value.until;
    else steps.push(r.value);
  }
}

describe("model search on several instances", () => {
  it("runs its trials on the pool's instances, several at once, and serves the best", async () => {
    const pool = new BytesPool(2);
    const { result } = await train(pool, { max_trials: 8 });
    const s = result.search!;
    expect(s.instances).toBe(2);
    expect(s.trials.map((t) => t.trial)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(s.trials[0].params).toMatchObject({ learning_rate: 0.1, num_leaves: 7 });
    const best = s.trials.filter((t) => t.status === "completed").reduce((a, b) => (b.loss < a.loss ? b : a));
    expect(s.best).toBe(best.trial);
    expect(pool.closed).toBe(true);
  });

  it("reports each trial done with the best loss so far", async () => {
    const { steps } = await train(new BytesPool(2), { max_trials: 6 });
    const done = steps.filter((x) => x.phase === "search" && x.bestLoss !== null) as { bestLoss: number }[];
    expect(done).toHaveLength(6);
    for (let i = 1; i < done.length; i++) expect(done[i].bestLoss).toBeLessThanOrEqual(done[i - 1].bestLoss);
  });

  it("goes on without a trial that failed on its instance", async () => {
    const { result } = await train(new BytesPool(2, 2), { max_trials: 6 });
    const s = result.search!;
    expect(s.trials.find((t) => t.trial === 2)).toMatchObject({ status: "failed", folds: 0 });
    expect(s.trials.filter((t) => t.status === "completed").length).toBeGreaterThan(3);
  });

  it("sends at most as many trials at once as the pool has instances, each with the time left", async () => {
    const pool = new BytesPool(3);
    await train(pool, { max_trials: 7, time_budget_s: 120 });
    expect(pool.started).toHaveLength(7);
    expect(pool.maxInFlight).toBe(3);
    expect(pool.started[0].floorMs).not.toBeNull();
    for (const spec of pool.started.slice(1)) {
      expect(spec.floorMs).toBeNull();
      expect(spec.budgetMs).toBeLessThanOrEqual(120_000);
    }
  });

  it("runs its trials here when the pool cannot take the rows", async () => {
    const pool = new BytesPool(2, null, true);
    const { result } = await train(pool, { max_trials: 4 });
    expect(pool.started).toHaveLength(0);
    expect(result.search!.instances).toBe(1);
    expect(result.search!.trials).toHaveLength(4);
  });

  it("is the one-instance search when the pool has a single instance", () => {
    const pool = new BytesPool(1);
    const one = trainPredictionModel(frame(), { labelColumn: "y", params: { max_trials: 5 }, trialPool: pool });
    expect(pool.started).toHaveLength(0);
    expect(one.search!.instances).toBe(1);
  });
});

describe("search bytes", () => {
  it("give back a trial's outcome bit for bit", async () => {
    const pool = new BytesPool(2);
    await train(pool, { max_trials: 2 });
    const { data, plan } = decodeSearchData(encodeSearchData(...(await rowsOf(pool))));
    const outcome = runTrial(data, plan, { trial: 0, params: {}, budgetMs: 60_000, floorMs: null, pruneAbove: null }, () => performance.now());
    let r = outcome.next();
    while (!r.done) r = outcome.next();
    const back = decodeTrialOutcome(encodeTrialOutcome(r.value));
    expect(back.fits.map((f) => f.model)).toEqual(r.value.fits.map((f) => f.model));
    for (let i = 0; i < back.fits.length; i++) expect(Array.from(back.fits[i].raw)).toEqual(Array.from(r.value.fits[i].raw));
  });
});

/** The rows a pool was opened with. */
async function rowsOf(pool: BytesPool): Promise<[SearchRows, FoldPlan]> {
  const { data, plan } = decodeSearchData((pool as unknown as { bytes: Uint8Array }).bytes);
  return [data, plan];
}
