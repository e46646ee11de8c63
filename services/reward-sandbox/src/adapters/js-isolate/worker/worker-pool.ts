// Worker processes ready for runs, per memory limit (a worker's address-space
// limit is fixed when it starts, so it serves one limit). A run takes an idle
// worker, waits for one that is recycling (disposing its last isolate and
// preparing the next: a few ms), or starts one; spares are started in the
// background so that the next run, and the one after a worker was killed, finds
// a worker already warm. A killed or dead worker is simply forgotten and
// replaced: the fast path never switches itself off. Only when workers cannot be
// started at all does the pool say it is unavailable (the service then runs
// JavaScript natively) while it retries in the background.

import { JsWorkerError, JsWorkerErrorCode } from './errors.ts';
import type { WorkerExit, WorkerHooks, WorkerProcess } from './worker-process.ts';

/** Consecutive failed starts after which the pool says it is unavailable. */
const MAX_START_FAILURES = 3;
/** First retry delay after failed starts; doubles per failure up to 32x. */
const START_RETRY_MS = 1000;
/** A worker that has not finished recycling by then is replaced (it normally takes a few ms). */
const RECYCLE_TIMEOUT_MS = 5000;

/** Lifecycle events, for logs, metrics and tests. */
export type WorkerEvent =
  | { type: 'started'; pid: number; memoryMb: number; limitBytes: number; startMs: number }
  | { type: 'start-failed'; memoryMb: number; code: string; message: string }
  | { type: 'exited'; pid: number; memoryMb: number; killedFor: string | null; code: number | null; signal: string | null };

/** Options of {@link WorkerPool}. */
export interface WorkerPoolOptions {
  /** Workers kept idle or on their way per memory limit in use. */
  spares: number;
  /** Idle workers kept per memory limit after a burst; more are stopped. */
  maxIdle: number;
  /** Memory limits served at once; the least recently used beyond this lose their idle workers. */
  maxKeys: number;
  /** Address-space margin the workers were started with (a worker that grew past half of it is replaced). */
  asMarginMb: number;
  launch: (memoryMb: number, hooks: WorkerHooks) => WorkerProcess;
  onEvent: (event: WorkerEvent) => void;
}

/** See the file comment. */
export class WorkerPool {
  readonly #opts: WorkerPoolOptions;
  // Insertion order is recency of use: the first key is the least recently used.
  readonly #idle = new Map<number, WorkerProcess[]>();
  readonly #recycling = new Map<WorkerProcess, NodeJS.Timeout>();
  readonly #spareStarts = new Map<number, number>();
  readonly #changes = new Map<number, PromiseWithResolvers<void>>();
  readonly #all = new Set<WorkerProcess>();
  readonly #everReady = new WeakSet<WorkerProcess>();
  #startFailures = 0;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: WorkerPoolOptions) {
    this.#opts = options;
  }

  /** False while workers cannot be started (retried in the background). */
  get available(): boolean {
    return !this.#closed && this.#startFailures < MAX_START_FAILURES;
  }

  /** Pids of every live worker (idle, busy, recycling or starting). */
  pids(): number[] {
    return [...this.#all].map((w) => w.pid);
  }

  /** Starts spares for `memoryMb` now, so the first runs do not wait for a worker. */
  warm(memoryMb: number): void {
    this.#want(memoryMb);
    this.#topUp(memoryMb);
  }

  /** An idle worker for `memoryMb`: one that is idle, soon idle, or new once it is ready. */
  async take(memoryMb: number, signal: AbortSignal): Promise<WorkerProcess> {
    this.#want(memoryMb);
    for (;;) {
      if (this.#closed) throw new JsWorkerError(JsWorkerErrorCode.Closed, 'the JavaScript runner is closed');
      const idle = this.#idle.get(memoryMb)?.shift();
      if (idle !== undefined) {
        this.#topUp(memoryMb);
        return idle;
      }
      if (this.#count(memoryMb, [...this.#recycling.keys()]) === 0) break;
      await this.#changed(memoryMb, signal);
    }
    this.#topUp(memoryMb);
    const worker = this.#start(memoryMb);
    const onAbort = () => worker.kill('abort');
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      await worker.ready;
      signal.throwIfAborted();
      return worker;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** Gives back a worker whose run ended normally; it is idle again once it has recycled. */
  release(worker: WorkerProcess): void {
    if (!worker.alive) return;
    if (this.#closed) {
      worker.kill('close');
      return;
    }
    // Left referenced: a run waiting for this worker must keep the service's event loop alive.
    this.#recycling.set(
      worker,
      setTimeout(() => worker.kill('recycle-timeout'), RECYCLE_TIMEOUT_MS),
    );
  }

  /** Kills a worker that is no longer trusted; a spare takes its place. */
  retire(worker: WorkerProcess, reason: string): void {
    worker.kill(reason);
  }

  /** Kills every worker and waits until they are gone. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    for (const timer of this.#recycling.values()) clearTimeout(timer);
    const all = [...this.#all];
    for (const worker of all) worker.kill('close');
    for (const key of [...this.#changes.keys()]) this.#notify(key);
    this.#idle.clear();
    await Promise.all(all.map((w) => w.exited));
  }

  #start(memoryMb: number): WorkerProcess {
    const startedAt = performance.now();
    const worker = this.#opts.launch(memoryMb, { idle: (w) => this.#onIdle(w), exited: (w, exit) => this.#onExit(w, exit) });
    this.#all.add(worker);
    worker.ready.then(
      () => {
        this.#everReady.add(worker);
        this.#startFailures = 0;
        this.#opts.onEvent({ type: 'started', pid: worker.pid, memoryMb, limitBytes: worker.limitBytes, startMs: performance.now() - startedAt });
      },
      (err: unknown) => {
        // Stopped on purpose while starting (an aborted run, shutdown): not a failure to start.
        if (worker.killedFor === 'abort' || worker.killedFor === 'close') return;
        this.#startFailures++;
        const code = err instanceof JsWorkerError ? err.code : JsWorkerErrorCode.StartFailed;
        this.#opts.onEvent({ type: 'start-failed', memoryMb, code, message: err instanceof Error ? err.message : String(err) });
        this.#scheduleRetry(memoryMb);
      },
    );
    return worker;
  }

  // Starts spares until `spares` workers are idle or on their way for this limit.
  #topUp(memoryMb: number): void {
    const list = this.#idle.get(memoryMb);
    if (this.#closed || list === undefined || this.#startFailures > 0) return;
    const onTheirWay = (this.#spareStarts.get(memoryMb) ?? 0) + this.#count(memoryMb, [...this.#recycling.keys()]);
    for (let n = list.length + onTheirWay; n < this.#opts.spares; n++) {
      this.#spareStarts.set(memoryMb, (this.#spareStarts.get(memoryMb) ?? 0) + 1);
      const worker = this.#start(memoryMb);
      const settled = () => this.#spareStarts.set(memoryMb, (this.#spareStarts.get(memoryMb) ?? 1) - 1);
      worker.ready.then(() => {
        settled();
        this.#admit(worker);
      }, settled);
    }
  }

  #scheduleRetry(memoryMb: number): void {
    if (this.#closed || this.#retry !== undefined) return;
    const delayMs = START_RETRY_MS * 2 ** Math.min(5, this.#startFailures - 1);
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      // One attempt; its success resets the count and later takes top up as usual.
      if (!this.#closed && this.#idle.has(memoryMb)) {
        const worker = this.#start(memoryMb);
        worker.ready.then(
          () => this.#admit(worker),
          () => {},
        );
      }
    }, delayMs);
    this.#retry.unref();
  }

  // Puts a ready, unused worker in its idle list (or stops it when not wanted) and wakes waiting takes.
  #admit(worker: WorkerProcess): void {
    const list = this.#idle.get(worker.memoryMb);
    if (this.#closed || list === undefined || !worker.alive) worker.kill('surplus');
    else if (list.length >= this.#opts.maxIdle) worker.kill('surplus');
    else list.push(worker);
    this.#notify(worker.memoryMb);
  }

  // The idle list for a limit, now the most recently used; evicts the oldest limit.
  #want(memoryMb: number): WorkerProcess[] {
    const list = this.#idle.get(memoryMb) ?? [];
    this.#idle.delete(memoryMb);
    this.#idle.set(memoryMb, list);
    while (this.#idle.size > this.#opts.maxKeys) {
      const [oldest, stale] = this.#idle.entries().next().value as [number, WorkerProcess[]];
      this.#idle.delete(oldest);
      for (const worker of stale) worker.kill('evicted');
    }
    return list;
  }

  #count(memoryMb: number, workers: WorkerProcess[]): number {
    return workers.filter((w) => w.memoryMb === memoryMb).length;
  }

  #changed(memoryMb: number, signal: AbortSignal): Promise<void> {
    let change = this.#changes.get(memoryMb);
    if (change === undefined) {
      change = Promise.withResolvers<void>();
      this.#changes.set(memoryMb, change);
    }
    const { promise } = change;
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      void promise.then(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }

  #notify(memoryMb: number): void {
    const change = this.#changes.get(memoryMb);
    this.#changes.delete(memoryMb);
    change?.resolve();
  }

  #onIdle(worker: WorkerProcess): void {
    const timer = this.#recycling.get(worker);
    if (timer === undefined) return;
    clearTimeout(timer);
    this.#recycling.delete(worker);
    // Measured here, where no program runs: a worker whose address space did not
    // come back to its baseline would leave the next run short of its limit.
    if (!worker.fits(this.#opts.asMarginMb)) worker.kill('grown');
    else this.#admit(worker);
  }

  #onExit(worker: WorkerProcess, exit: WorkerExit): void {
    this.#all.delete(worker);
    clearTimeout(this.#recycling.get(worker));
    this.#recycling.delete(worker);
    const list = this.#idle.get(worker.memoryMb);
    const at = list?.indexOf(worker) ?? -1;
    if (at >= 0) list?.splice(at, 1);
    this.#opts.onEvent({ type: 'exited', pid: worker.pid, memoryMb: worker.memoryMb, killedFor: exit.killedFor, code: exit.code, signal: exit.signal });
    this.#notify(worker.memoryMb);
    // A worker that never became ready is the start-failure path's business, not a vacancy.
    if (this.#everReady.has(worker)) this.#topUp(worker.memoryMb);
  }
}
