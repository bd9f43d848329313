/**
 * The trainer's threads for the engine's parallel steps (the ParallelExecutor of src/ml/parallel):
 * one worker thread per vCPU beyond the main thread, started once with the trainer and kept for
 * every job, since starting one costs far more than a small model's whole training.
 *
 * No messages on the hot path: a run is a few words in a shared Int32Array (the command, its
 * session, its task count, the next task to take, how many threads are done) with Atomics.wait /
 * Atomics.notify; the main thread takes tasks too and returns once every thread has answered.
 * Threads wait in Atomics.wait between runs and between jobs (no CPU). A session's state (shared
 * typed arrays) goes over a MessagePort, which a thread drains synchronously
 * (receiveMessageOnPort) when the next command wakes it. Every command is answered by every
 * thread before the next is written, so no thread ever reads half of one.
 *
 * Under tsx (npm start, tests) a thread loads this TypeScript file through tsx; the container runs
 * the bundle, which is this same module (see ./frame-stream-thread).
 */
import { availableParallelism } from "node:os";
import { isMainThread, MessageChannel, type MessagePort, receiveMessageOnPort, Worker, workerData } from "node:worker_threads";
import { TRAINER_THREADS_ENV } from "../core/limits";
import { gbdtGradientsKernel } from "../ml/gbdt/parallel-gradients";
import { gbdtGrowKernel } from "../ml/gbdt/parallel-grow";
import { rowPassKernel } from "../ml/kmeans/row-passes";
import { searchKernel } from "../ml/knn/parallel-search";
import type { ParallelExecutor, ParallelKernel, ParallelKernelName, ParallelSession } from "../ml/parallel";
import { logError } from "./log";

const ROLE = "gbdt-thread";
const KERNELS: Record<ParallelKernelName, ParallelKernel> = {
  "gbdt-grow": gbdtGrowKernel,
  "gbdt-gradients": gbdtGradientsKernel,
  "kmeans-rows": rowPassKernel,
  "knn-search": searchKernel,
};

// the control words
const SEQ = 0; // bumped by every command
const CMD = 1;
const SESSION = 2;
const COUNT = 3;
const NEXT = 4; // the next task to take
const DONE = 5; // threads that answered the command
const FAILED = 6; // a task threw on a thread
const CONTROL_WORDS = 7;
const CMD_RUN = 1;
const CMD_SYNC = 2; // only read the port (a session closed: drop its state now)
const CMD_EXIT = 3;
/** A thread that has not answered a run for this long is gone (a run takes seconds at most). */
const ANSWER_TIMEOUT_MS = 10 * 60_000;

type Message = { open: number; kernel: ParallelKernelName; state: object } | { close: number };

interface Start {
  role: typeof ROLE;
  control: Int32Array;
  port: MessagePort;
}

/**
 * The threads to train on: TRAINER_THREADS, else the instance's vCPUs.
 * @internal exported for its unit test (test/ml/gbdt-threads.test.ts)
 */
export function trainerThreads(env: Record<string, string | undefined> = process.env): number {
  const raw = env[TRAINER_THREADS_ENV];
  if (raw === undefined || raw === "") return availableParallelism();
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${TRAINER_THREADS_ENV} must be a whole number of at least 1 (got "${raw}")`);
  return n;
}

export class GbdtThreads implements ParallelExecutor {
  readonly threads: number;
  private readonly control = new Int32Array(new SharedArrayBuffer(CONTROL_WORDS * 4));
  private readonly workers: Worker[] = [];
  private readonly ports: MessagePort[] = [];
  private readonly runners = new Map<number, (task: number) => void>();
  private nextSession = 1;
  /** A session its training dropped without closing it (a generator abandoned mid-way): closed when collected. */
  private readonly abandoned = new FinalizationRegistry<number>((id) => this.closeSession(id));

  constructor(threads: number) {
    this.threads = Math.max(1, threads);
    const here = new URL(import.meta.url);
    const execArgv = here.pathname.endsWith(".ts") ? ["--import", "tsx"] : undefined;
    for (let i = 1; i < this.threads; i++) {
      const { port1, port2 } = new MessageChannel();
      const start: Start = { role: ROLE, control: this.control, port: port2 };
      const worker = new Worker(here, { workerData: start, transferList: [port2], execArgv });
      // idle threads never keep the process alive
      worker.unref();
      port1.unref();
      worker.on("error", (e) => logError("a training thread failed", { error: e.message }));
      this.workers.push(worker);
      this.ports.push(port1);
    }
  }

  open(kernel: ParallelKernelName, state: object): ParallelSession {
    const id = this.nextSession++;
    for (const port of this.ports) port.postMessage({ open: id, kernel, state } satisfies Message);
    this.runners.set(id, KERNELS[kernel](state));
    const session: ParallelSession = {
      run: (count) => this.run(id, count),
      close: () => {
        this.abandoned.unregister(session);
        this.closeSession(id);
      },
    };
    this.abandoned.register(session, id, session);
    return session;
  }

  private closeSession(id: number): void {
    if (!this.runners.delete(id)) return;
    for (const port of this.ports) port.postMessage({ close: id } satisfies Message);
    if (this.workers.length > 0) this.command(CMD_SYNC, id, 0);
  }

  /** Waits until every thread is up (the first command waits for that anyway). */
  warm(): void {
    this.command(CMD_SYNC, 0, 0);
  }

  async close(): Promise<void> {
    this.runners.clear();
    if (this.workers.length > 0) this.command(CMD_EXIT, 0, 0);
    await Promise.all(this.workers.map((w) => w.terminate()));
  }

  private run(session: number, count: number): void {
    const runner = this.runners.get(session);
    if (!runner) throw new Error("run on a closed training session");
    if (this.workers.length === 0) {
      for (let t = 0; t < count; t++) runner(t);
      return;
    }
    this.command(CMD_RUN, session, count, runner);
  }

  /** Writes a command, takes tasks with the threads (a run), and waits for every thread's answer. */
  private command(cmd: number, session: number, count: number, runner?: (task: number) => void): void {
    const c = this.control;
    Atomics.store(c, CMD, cmd);
    Atomics.store(c, SESSION, session);
    Atomics.store(c, COUNT, count);
    Atomics.store(c, NEXT, 0);
    Atomics.store(c, DONE, 0);
    Atomics.add(c, SEQ, 1);
    Atomics.notify(c, SEQ);
    if (runner) for (let t = Atomics.add(c, NEXT, 1); t < count; t = Atomics.add(c, NEXT, 1)) runner(t);
    if (cmd === CMD_EXIT) return;
    const deadline = Date.now() + ANSWER_TIMEOUT_MS;
    for (let done = Atomics.load(c, DONE); done < this.workers.length; done = Atomics.load(c, DONE)) {
      if (Date.now() > deadline) throw new Error("a training thread stopped answering");
      Atomics.wait(c, DONE, done, 1000);
    }
    if (Atomics.exchange(c, FAILED, 0) !== 0) throw new Error("a training thread failed (see the trainer's log)");
  }
}

/** A thread's life: wait for a command, read the port, take tasks, answer; until told to exit. */
function threadLoop({ control: c, port }: Start): void {
  const runners = new Map<number, (task: number) => void>();
  for (let seen = 0; ; ) {
    Atomics.wait(c, SEQ, seen);
    const seq = Atomics.load(c, SEQ);
    if (seq === seen) continue;
    seen = seq;
    for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) {
      const msg = m.message as Message;
      if ("open" in msg) runners.set(msg.open, KERNELS[msg.kernel](msg.state));
      else runners.delete(msg.close);
    }
    const cmd = Atomics.load(c, CMD);
    if (cmd === CMD_EXIT) return;
    if (cmd === CMD_RUN) {
      const count = Atomics.load(c, COUNT);
      try {
        const runner = runners.get(Atomics.load(c, SESSION));
        if (!runner) throw new Error("a run of a session this thread does not know");
        for (let t = Atomics.add(c, NEXT, 1); t < count; t = Atomics.add(c, NEXT, 1)) runner(t);
      } catch (e) {
        logError("a training thread's task failed", { error: (e as Error).stack ?? String(e) });
        Atomics.store(c, FAILED, 1);
      }
    }
    Atomics.add(c, DONE, 1);
    Atomics.notify(c, DONE);
  }
}

if (!isMainThread && (workerData as Start | undefined)?.role === ROLE) threadLoop(workerData as Start);

let shared: GbdtThreads | undefined;

/** The trainer's threads: started with its first training (or search trial) and kept for every later one. */
export function trainerThreadPool(): GbdtThreads {
  shared ??= new GbdtThreads(trainerThreads());
  return shared;
}
