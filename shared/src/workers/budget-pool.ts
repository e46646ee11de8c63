import { Worker } from 'node:worker_threads';
import { AppError, ErrorCode } from '../errors.ts';
import { PROGRESS_INDEX, PROGRESS_SEQ, type ItemReport, type JobMessage, type JobReport, type WorkerBoot } from './protocol.ts';

/** One unit of work and the wall-clock time it may take once started. */
export interface BudgetTask<T> {
  input: T;
  budgetMs: number;
}

/** Result slot of one task. */
export type BudgetOutcome<R> =
  | { status: 'ok'; value: R }
  | { status: 'timeout' }
  | { status: 'failed'; message: string };

/** Options of {@link BudgetPool}. */
export interface BudgetPoolOptions {
  /** Module (file URL) exporting a synchronous `handle(input)`; loaded in every worker. */
  moduleUrl: string;
  /** Number of worker threads. */
  size: number;
  /** Largest number of items sent to a worker in one message. @default 64 */
  maxJobItems?: number;
  /** How often the watchdog looks at busy workers. @default 25 */
  watchdogIntervalMs?: number;
  /** V8 old-generation heap cap per worker; an item that exceeds it fails alone. @default 512 */
  workerHeapMb?: number;
}

/** Consecutive crashes of workers that never finished a job, after which the pool gives up. */
const MAX_CRASH_STREAK = 5;

interface Batch {
  outcomes: Array<BudgetOutcome<unknown> | undefined>;
  tasks: ReadonlyArray<BudgetTask<unknown>>;
  pending: number;
  resolve: (v: Array<BudgetOutcome<unknown>>) => void;
  reject: (e: unknown) => void;
}

interface Job {
  id: number;
  batch: Batch;
  /** Indexes into `batch.tasks`. */
  items: number[];
}

interface Slot {
  worker: Worker;
  progress: Int32Array;
  job: Job | undefined;
  seenSeq: number;
  seenAt: number;
}

/**
 * A pool of worker threads for CPU-bound, synchronous, side-effect-free tasks
 * where one pathological input must not stall the rest. Each task has a time
 * budget; a watchdog reads each worker's progress from shared memory and, when
 * one item overruns, terminates that thread (a regex stuck in backtracking cannot
 * be interrupted any other way), reports the item as `timeout`, starts a fresh
 * worker and requeues the job's other items. Tasks must be deterministic, since
 * an interrupted job's finished items are computed again, and their inputs must be
 * JSON values (they cross to the worker as JSON).
 */
export class BudgetPool<T, R> {
  readonly #opts: Required<BudgetPoolOptions>;
  readonly #slots: Slot[] = [];
  readonly #queue: Job[] = [];
  #nextJobId = 1;
  #watchdog: NodeJS.Timeout | undefined;
  #closed = false;
  #crashStreak = 0;

  constructor(options: BudgetPoolOptions) {
    this.#opts = { maxJobItems: 64, watchdogIntervalMs: 25, workerHeapMb: 512, ...options };
    for (let i = 0; i < this.#opts.size; i++) this.#slots.push(this.#spawn());
  }

  /** Number of worker threads. */
  get size(): number {
    return this.#slots.length;
  }

  /** Runs every task; the returned array matches `tasks` index for index. */
  run(tasks: ReadonlyArray<BudgetTask<T>>, signal?: AbortSignal): Promise<Array<BudgetOutcome<R>>> {
    if (this.#closed) return Promise.reject(new AppError(ErrorCode.Unavailable, 'worker pool is closed', { status: 503, retryable: true }));
    if (tasks.length === 0) return Promise.resolve([]);
    const { promise, resolve, reject } = Promise.withResolvers<Array<BudgetOutcome<unknown>>>();
    const batch: Batch = { outcomes: new Array(tasks.length), tasks, pending: tasks.length, resolve, reject };
    // Spread a batch over all workers, in contiguous slices so each message is large enough to amortise.
    const per = Math.min(this.#opts.maxJobItems, Math.ceil(tasks.length / this.#slots.length));
    for (let start = 0; start < tasks.length; start += per) {
      const items: number[] = [];
      for (let i = start; i < Math.min(start + per, tasks.length); i++) items.push(i);
      this.#queue.push({ id: this.#nextJobId++, batch, items });
    }
    if (signal !== undefined) {
      const onAbort = () => this.#abortBatch(batch, signal.reason);
      if (signal.aborted) onAbort();
      else {
        signal.addEventListener('abort', onAbort, { once: true });
        void promise.finally(() => signal.removeEventListener('abort', onAbort)).catch(() => {});
      }
    }
    this.#pump();
    return promise as Promise<Array<BudgetOutcome<R>>>;
  }

  /** Terminates every worker; queued batches fail with `unavailable`. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#watchdog);
    const err = new AppError(ErrorCode.Unavailable, 'worker pool closed', { status: 503, retryable: true });
    for (const job of this.#queue.splice(0)) job.batch.reject(err);
    for (const slot of this.#slots) slot.job?.batch.reject(err);
    await Promise.all(this.#slots.map((s) => s.worker.terminate()));
  }

  #spawn(): Slot {
    const progress = new SharedArrayBuffer(8);
    const boot: WorkerBoot = { moduleUrl: this.#opts.moduleUrl, progress };
    const worker = new Worker(new URL('./worker-main.ts', import.meta.url), {
      workerData: boot,
      resourceLimits: { maxOldGenerationSizeMb: this.#opts.workerHeapMb },
    });
    const slot: Slot = { worker, progress: new Int32Array(progress), job: undefined, seenSeq: 0, seenAt: 0 };
    worker.on('message', (report: JobReport) => this.#onReport(slot, report));
    worker.on('error', (err) => this.#onCrash(slot, err));
    worker.unref();
    return slot;
  }

  #pump(): void {
    for (const slot of this.#slots) {
      if (slot.job !== undefined) continue;
      const job = this.#queue.shift();
      if (job === undefined) break;
      slot.job = job;
      // A busy worker keeps the process alive; an idle one must not.
      slot.worker.ref();
      slot.seenSeq = Atomics.load(slot.progress, PROGRESS_SEQ);
      slot.seenAt = performance.now();
      const message: JobMessage = { jobId: job.id, inputsJson: JSON.stringify(job.items.map((i) => job.batch.tasks[i]?.input)) };
      slot.worker.postMessage(message);
    }
    if (this.#watchdog === undefined && this.#slots.some((s) => s.job !== undefined)) {
      this.#watchdog = setInterval(() => this.#inspect(), this.#opts.watchdogIntervalMs);
      this.#watchdog.unref();
    }
  }

  #onReport(slot: Slot, report: JobReport): void {
    const job = slot.job;
    if (job === undefined || job.id !== report.jobId) return;
    slot.job = undefined;
    slot.worker.unref();
    this.#crashStreak = 0;
    const results = JSON.parse(report.resultsJson) as ItemReport[];
    results.forEach((r, k) => {
      const index = job.items[k];
      if (index === undefined) return;
      this.#settle(job.batch, index, r.ok ? { status: 'ok', value: r.value } : { status: 'failed', message: r.message });
    });
    this.#pump();
    this.#idleWatchdog();
  }

  #inspect(): void {
    const now = performance.now();
    for (const slot of this.#slots) {
      const job = slot.job;
      if (job === undefined) continue;
      const seq = Atomics.load(slot.progress, PROGRESS_SEQ);
      if (seq !== slot.seenSeq) {
        slot.seenSeq = seq;
        slot.seenAt = now;
        continue;
      }
      const k = Atomics.load(slot.progress, PROGRESS_INDEX);
      const index = job.items[k];
      const budget = index === undefined ? Infinity : (job.batch.tasks[index]?.budgetMs ?? Infinity);
      if (now - slot.seenAt > budget) this.#replace(slot, k, { status: 'timeout' });
    }
  }

  #onCrash(slot: Slot, err: Error): void {
    if (!this.#slots.includes(slot)) return;
    if (++this.#crashStreak > MAX_CRASH_STREAK) {
      // Workers die before finishing anything (e.g. the task module fails to load): stop respawning.
      const broken = new AppError(ErrorCode.Internal, `worker pool broken: ${err.message}`, { status: 500, cause: err });
      this.#closed = true;
      for (const job of this.#queue.splice(0)) job.batch.reject(broken);
      for (const s of this.#slots) s.job?.batch.reject(broken);
      return;
    }
    const k = slot.job === undefined ? -1 : Atomics.load(slot.progress, PROGRESS_INDEX);
    this.#replace(slot, k, { status: 'failed', message: `worker crashed: ${err.message}` });
  }

  /** Kills the slot's worker, settles item `k` of its job with `outcome`, requeues the rest first in line. */
  #replace(slot: Slot, k: number, outcome: BudgetOutcome<unknown>): void {
    const job = slot.job;
    slot.job = undefined;
    void slot.worker.terminate();
    const fresh = this.#spawn();
    this.#slots[this.#slots.indexOf(slot)] = fresh;
    if (job !== undefined) {
      const culprit = job.items[k];
      if (culprit !== undefined) this.#settle(job.batch, culprit, outcome);
      const rest = job.items.filter((_, i) => i !== k);
      if (rest.length > 0) this.#queue.unshift({ id: this.#nextJobId++, batch: job.batch, items: rest });
    }
    if (!this.#closed) this.#pump();
    this.#idleWatchdog();
  }

  #settle(batch: Batch, index: number, outcome: BudgetOutcome<unknown>): void {
    if (batch.outcomes[index] !== undefined) return;
    batch.outcomes[index] = outcome;
    if (--batch.pending === 0) batch.resolve(batch.outcomes as Array<BudgetOutcome<unknown>>);
  }

  #abortBatch(batch: Batch, reason: unknown): void {
    if (batch.pending === 0) return;
    batch.pending = -1;
    for (let i = this.#queue.length - 1; i >= 0; i--) if (this.#queue[i]?.batch === batch) this.#queue.splice(i, 1);
    for (const slot of this.#slots) {
      if (slot.job?.batch === batch) {
        slot.job = undefined;
        this.#replace(slot, -1, { status: 'failed', message: 'aborted' });
      }
    }
    batch.reject(reason ?? new AppError(ErrorCode.Unavailable, 'aborted', { status: 503, retryable: true }));
  }

  #idleWatchdog(): void {
    if (this.#watchdog !== undefined && this.#slots.every((s) => s.job === undefined)) {
      clearInterval(this.#watchdog);
      this.#watchdog = undefined;
    }
  }
}
