import type { ParallelExecutor } from "../../../src/ml/parallel";

/** An executor that passes everything to `inner`, counting the sessions opened on it and the runs made through them. */
export function counting(inner: ParallelExecutor) {
  const seen = { opened: 0, runs: 0 };
  const executor: ParallelExecutor = {
    threads: inner.threads,
    open(kernel, state) {
      seen.opened++;
      const session = inner.open(kernel, state);
      return { run: (count) => (seen.runs++, session.run(count)), close: () => session.close() };
    },
  };
  return { executor, seen };
}
