/**
 * Threads for the engine's hot loops, as a plain dependency: the engine never starts a thread
 * itself (it also runs inside workerd, which has none). A host that has threads (the trainer:
 * src/container/gbdt-threads.ts) hands an executor in; without one the engine runs on one thread.
 *
 * The protocol: `open` hands a kernel's state (typed arrays over SharedArrayBuffers, plus plain
 * values) to every thread; each thread makes its runner from it once (./parallel-kernels); `run`
 * then runs tasks 0..count-1 of that runner, each exactly once on some thread (the caller's
 * included), and returns when all are done. The caller writes what a run is about into the
 * shared state before calling `run`, and reads the results from it after. Tasks must write
 * disjoint memory, so which thread ran which task never changes a result.
 */

export interface ParallelExecutor {
  /** Threads that run tasks, counting the caller's. */
  readonly threads: number;
  open(kernel: ParallelKernelName, state: object): ParallelSession;
}

export interface ParallelSession {
  /** Runs tasks 0..count-1 (synchronously: the caller blocks, and runs tasks too). */
  run(count: number): void;
  /** Lets the threads drop the state. */
  close(): void;
}

/** The kernels threads can run, by name (the host's threads map each to its function). */
export type ParallelKernelName = "gbdt-grow" | "gbdt-gradients" | "kmeans-rows" | "knn-search";

/** Makes one thread's runner from the shared state. */
export type ParallelKernel = (state: object) => (task: number) => void;

/** A memory block threads can share: a SharedArrayBuffer where the runtime has them. */
export function sharedBuffer(bytes: number): ArrayBuffer | SharedArrayBuffer {
  return typeof SharedArrayBuffer === "function" ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes);
}
