/**
 * The gradients of a round spread over threads (../parallel), by fixed row ranges: each row's
 * gradient and hessian depend on that row alone, so they are the same for any number of threads.
 * One output per row only (regression, binary); multiclass stays on one thread.
 */

import type { ParallelExecutor, ParallelSession } from "../parallel";
import type { Objective } from "./model";
import { gradients } from "./objective";

/** What every thread sees (typed arrays over shared memory, and constants). */
export interface GradientState {
  objective: Objective;
  n: number;
  tasks: number;
  scores: Float64Array;
  label: Float64Array;
  weight: Float64Array | null;
  grad: Float64Array;
  hess: Float64Array;
}

/** One thread's runner of tasks (the executor's kernel "gbdt-gradients"). */
export function gbdtGradientsKernel(state: object): (task: number) => void {
  const s = state as GradientState;
  const prob = new Float64Array(1);
  return (task) => {
    const a = Math.floor((task * s.n) / s.tasks);
    const b = Math.floor(((task + 1) * s.n) / s.tasks);
    const r = <T extends Float64Array>(x: T) => x.subarray(a, b) as T;
    gradients(s.objective, r(s.scores), r(s.label), 1, r(s.grad), r(s.hess), prob, s.weight ? r(s.weight) : undefined);
  };
}

export class ParallelGradients {
  private readonly session: ParallelSession;
  private readonly tasks: number;

  constructor(executor: ParallelExecutor, state: Omit<GradientState, "tasks">) {
    this.tasks = executor.threads;
    this.session = executor.open("gbdt-gradients", { ...state, tasks: this.tasks });
  }

  run(): void {
    this.session.run(this.tasks);
  }

  close(): void {
    this.session.close();
  }
}
