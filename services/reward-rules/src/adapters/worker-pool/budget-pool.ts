import { Worker } from 'node:worker_threads';
import type { HeapInfo } from 'node:v8';
import { AppError, ErrorCode, isErrorCode } from '@rl/service-kit';
import {
  PROGRESS_BUDGET,
  PROGRESS_INDEX,
  PROGRESS_SEQ,
  PROGRESS_SLOTS,
  type JobFailure,
  type JobMessage,
  type JobReport,
  type ReadyMessage,
  type SkipReason,
  type WorkerBoot,
} from './protocol.ts';

/** Options of {@link BudgetPool}. */
export interface BudgetPoolOptions {
  /** File URL of a module implementing `BatchModule` (see protocol.ts); loaded in every worker. */
  moduleUrl: string;
  /** Passed to the module's `init()` in every worker (structured-cloned). @default undefined */
  moduleData?: unknown;
  /** Number of worker threads. */
  size: number;
  /** How often the watchdog looks at busy workers. @default 25 */
  watchdogIntervalMs?: number;
  /** V8 old-generation heap cap per worker; an item that exceeds it fails alone. @default 512 */
  workerHeapMb?: number;
  /**
   * V8 young-generation size per worker (`resourceLimits.maxYoungGenerationSizeMb`),
   * or undefined for V8's default, which lets it grow to 128 MB (two 64 MB
   * semi-spaces in Node 24) and stay resident. Large enough that a batch's state
   * dies young instead of being promoted, it costs no throughput. @default undefined
   */
  workerYoungGenerationMb?: number | undefined;
  /**
   * The warm spare that replaces a killed worker at once (loading the module takes
   * up to a second or two): `eager` keeps one from the start; `on-demand` starts one
   * when a worker is replaced (the replacement itself starts cold if none was warm)
   * and retires it after `spareIdleMs` without another replacement; `none` never
   * keeps one. A spare costs a whole worker's memory. @default 'on-demand'
   */
  spare?: SpareMode;
  /** How long an on-demand spare stays warm after the last replacement. @default 60000 */
  spareIdleMs?: number;
}

/** See {@link BudgetPoolOptions.spare}. */
export type SpareMode = 'eager' | 'on-demand' | 'none';

/** Consecutive crashes of workers that never finished a job, after which the pool gives up. */
const MAX_CRASH_STREAK = 5;

interface Job {
  id: number;
  payload: Uint8Array | string;
  skip: Map<number, SkipReason>;
  resolve: (output: unknown) => void;
  reject: (err: unknown) => void;
  settled: boolean;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  progress: Int32Array;
  job: Job | undefined;
  seenSeq: number;
  seenAt: number;
}

/**
 * A pool of worker threads for CPU-bound, deterministic batch work where one
 * pathological item must not stall the rest. A batch goes to one worker as raw
 * bytes; the worker parses it and computes item by item, publishing which item
 * it is on and that item's budget in shared memory. A watchdog terminates a
 * worker whose current item overruns its budget (a regex stuck in backtracking
 * cannot be interrupted any other way), starts a fresh one, and runs the batch
 * again with that item marked `timeout`; an item that kills its worker (e.g. out
 * of memory) is marked `crashed` the same way. Finished items are recomputed on
 * a retry, which is why the work must be deterministic.
 */
export class BudgetPool {
  readonly #opts: Required<Omit<BudgetPoolOptions, 'workerYoungGenerationMb'>> & Pick<BudgetPoolOptions, 'workerYoungGenerationMb'>;
  readonly #slots: Slot[] = [];
  readonly #queue: Job[] = [];
  /** A pre-started worker that replaces a killed one at once (loading a module can take a second). */
  #spare: Slot | undefined;
  /** Retires an on-demand spare after `spareIdleMs` without a replacement. */
  #spareTimer: NodeJS.Timeout | undefined;
  readonly #allReady = Promise.withResolvers<void>();
  #nextJobId = 1;
  #watchdog: NodeJS.Timeout | undefined;
  #closed = false;
  /** Terminations in flight: close() waits for them, since exiting while a worker is still being torn down can abort the process. */
  readonly #dying = new Set<Promise<number>>();
  #crashStreak = 0;

  constructor(options: BudgetPoolOptions) {
    this.#opts = {
      watchdogIntervalMs: 25,
      workerHeapMb: 512,
      workerYoungGenerationMb: undefined,
      spare: 'on-demand',
      spareIdleMs: 60_000,
      moduleData: undefined,
      ...options,
    };
    for (let i = 0; i < this.#opts.size; i++) this.#slots.push(this.#spawn());
    if (this.#opts.spare === 'eager') this.#spare = this.#spawn();
    // Observed here so a broken pool is not an unhandled rejection when nobody awaits whenReady().
    this.#allReady.promise.catch(() => {});
  }

  /** Resolves once every worker has loaded its module; services await it before reporting ready. */
  whenReady(): Promise<void> {
    // Workers are unref'd so an idle pool never holds the process open; but a caller
    // waiting for them to load must, or a process with nothing else alive (a service
    // started without NATS) exits in the middle of the await.
    const hold = setInterval(() => {}, 60_000);
    return this.#allReady.promise.finally(() => clearInterval(hold));
  }

  /** Workers that have loaded their module. */
  get readyWorkers(): number {
    return this.#slots.filter((s) => s.ready).length;
  }

  /** Number of worker threads. */
  get size(): number {
    return this.#slots.length;
  }

  /** Warm spare workers (0 or 1). */
  get spareWorkers(): number {
    return this.#spare === undefined ? 0 : 1;
  }

  /** V8 heap statistics of each running worker (not the spare), for diagnostics. */
  heapStatistics(): Promise<HeapInfo[]> {
    return Promise.all(this.#slots.map((s) => s.worker.getHeapStatistics()));
  }

  /** Batches waiting for a free worker. */
  get queued(): number {
    return this.#queue.length;
  }

  /** Runs one batch; resolves with the module's `close()` output. */
  run(payload: Uint8Array | string, signal?: AbortSignal): Promise<unknown> {
    if (this.#closed) return Promise.reject(new AppError(ErrorCode.Unavailable, 'worker pool is closed', { retryable: true }));
    const { promise, resolve, reject } = Promise.withResolvers<unknown>();
    const job: Job = { id: this.#nextJobId++, payload, skip: new Map(), resolve, reject, settled: false };
    if (signal !== undefined) {
      const onAbort = () => this.#abort(job, signal.reason);
      if (signal.aborted) onAbort();
      else {
        signal.addEventListener('abort', onAbort, { once: true });
        void promise.then(
          () => signal.removeEventListener('abort', onAbort),
          () => signal.removeEventListener('abort', onAbort),
        );
      }
    }
    if (!job.settled) {
      this.#queue.push(job);
      this.#pump();
    }
    return promise;
  }

  /** Terminates every worker; queued and running batches fail with `unavailable`. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#watchdog);
    clearTimeout(this.#spareTimer);
    const err = new AppError(ErrorCode.Unavailable, 'worker pool closed', { retryable: true });
    for (const job of this.#queue.splice(0)) this.#finish(job, err);
    for (const slot of this.#slots) if (slot.job !== undefined) this.#finish(slot.job, err);
    const all = this.#spare === undefined ? this.#slots : [...this.#slots, this.#spare];
    this.#spare = undefined;
    for (const s of all) this.#kill(s.worker);
    await Promise.all([...this.#dying]);
  }

  #kill(worker: Worker): void {
    const dying = worker.terminate();
    this.#dying.add(dying);
    void dying.finally(() => this.#dying.delete(dying));
  }

  #spawn(): Slot {
    const progress = new SharedArrayBuffer(PROGRESS_SLOTS * Int32Array.BYTES_PER_ELEMENT);
    const boot: WorkerBoot = { moduleUrl: this.#opts.moduleUrl, moduleData: this.#opts.moduleData, progress };
    const worker = new Worker(new URL('./worker-main.ts', import.meta.url), {
      workerData: boot,
      resourceLimits: {
        maxOldGenerationSizeMb: this.#opts.workerHeapMb,
        ...(this.#opts.workerYoungGenerationMb === undefined ? {} : { maxYoungGenerationSizeMb: this.#opts.workerYoungGenerationMb }),
      },
    });
    const slot: Slot = { worker, ready: false, progress: new Int32Array(progress), job: undefined, seenSeq: 0, seenAt: 0 };
    Atomics.store(slot.progress, PROGRESS_INDEX, -1);
    worker.on('message', (msg: JobReport | ReadyMessage) => {
      if (msg.type === 'ready') this.#onReady(slot);
      else this.#onReport(slot, msg);
    });
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
      const message: JobMessage = { jobId: job.id, payload: job.payload, skip: [...job.skip] };
      slot.worker.postMessage(message);
    }
    if (this.#watchdog === undefined && this.#slots.some((s) => s.job !== undefined)) {
      this.#watchdog = setInterval(() => this.#inspect(), this.#opts.watchdogIntervalMs);
      this.#watchdog.unref();
    }
  }

  #onReady(slot: Slot): void {
    slot.ready = true;
    if (this.#slots.every((s) => s.ready)) this.#allReady.resolve();
  }

  #onReport(slot: Slot, report: JobReport): void {
    const job = slot.job;
    if (job === undefined || job.id !== report.jobId) return;
    slot.job = undefined;
    slot.worker.unref();
    this.#crashStreak = 0;
    if (report.ok) this.#finish(job, undefined, report.output);
    else this.#finish(job, failureToError(report.failure));
    this.#pump();
    this.#idleWatchdog();
  }

  #inspect(): void {
    const now = performance.now();
    for (const slot of this.#slots) {
      if (slot.job === undefined) continue;
      const seq = Atomics.load(slot.progress, PROGRESS_SEQ);
      if (seq !== slot.seenSeq) {
        slot.seenSeq = seq;
        slot.seenAt = now;
        continue;
      }
      const index = Atomics.load(slot.progress, PROGRESS_INDEX);
      if (index >= 0 && now - slot.seenAt > Atomics.load(slot.progress, PROGRESS_BUDGET)) this.#retry(slot, index, 'timeout');
    }
  }

  #onCrash(slot: Slot, err: Error): void {
    if (slot === this.#spare) {
      this.#spare = undefined;
      clearTimeout(this.#spareTimer);
      this.#kill(slot.worker);
      if (++this.#crashStreak > MAX_CRASH_STREAK) this.#breakPool(err);
      return;
    }
    if (!this.#slots.includes(slot)) return;
    const index = Atomics.load(slot.progress, PROGRESS_INDEX);
    if (++this.#crashStreak > MAX_CRASH_STREAK) {
      this.#breakPool(err);
      return;
    }
    if (slot.job !== undefined && index < 0) {
      // Died outside any item (parsing the payload): nothing to skip, so fail the batch rather than loop.
      const job = slot.job;
      this.#replaceWorker(slot);
      this.#finish(job, new AppError(ErrorCode.Internal, `worker crashed: ${err.message}`, { cause: err }));
      this.#pump();
      return;
    }
    this.#retry(slot, index, 'crashed');
  }

  /** Kills the slot's worker and puts its batch back first in line with item `index` marked. */
  #retry(slot: Slot, index: number, reason: SkipReason): void {
    const job = slot.job;
    this.#replaceWorker(slot);
    if (job !== undefined && !job.settled) {
      job.skip.set(index, reason);
      this.#queue.unshift(job);
    }
    if (!this.#closed) this.#pump();
    this.#idleWatchdog();
  }

  #replaceWorker(slot: Slot): void {
    slot.job = undefined;
    this.#kill(slot.worker);
    this.#slots[this.#slots.indexOf(slot)] = this.#spare ?? this.#spawn();
    this.#spare = this.#closed || this.#opts.spare === 'none' ? undefined : this.#spawn();
    if (this.#spare !== undefined && this.#opts.spare === 'on-demand') this.#retireSpareLater();
  }

  /** (Re)arms the on-demand spare's idle timer: pathological items come in bursts, memory is kept otherwise. */
  #retireSpareLater(): void {
    clearTimeout(this.#spareTimer);
    this.#spareTimer = setTimeout(() => {
      this.#spareTimer = undefined;
      const spare = this.#spare;
      this.#spare = undefined;
      if (spare !== undefined) this.#kill(spare.worker);
    }, this.#opts.spareIdleMs);
    this.#spareTimer.unref();
  }

  /** Workers keep dying (e.g. the batch module fails to load): stop respawning and fail everything. */
  #breakPool(err: Error): void {
    const broken = new AppError(ErrorCode.Internal, `worker pool broken: ${err.message}`, { cause: err });
    this.#closed = true;
    this.#allReady.reject(broken);
    for (const job of this.#queue.splice(0)) this.#finish(job, broken);
    for (const s of this.#slots) if (s.job !== undefined) this.#finish(s.job, broken);
  }

  #abort(job: Job, reason: unknown): void {
    const i = this.#queue.indexOf(job);
    if (i >= 0) this.#queue.splice(i, 1);
    const slot = this.#slots.find((s) => s.job === job);
    if (slot !== undefined) {
      this.#replaceWorker(slot);
      this.#pump();
      this.#idleWatchdog();
    }
    this.#finish(job, reason ?? new AppError(ErrorCode.Unavailable, 'aborted', { retryable: true }));
  }

  #finish(job: Job, err: unknown, output?: unknown): void {
    if (job.settled) return;
    job.settled = true;
    if (err !== undefined) job.reject(err);
    else job.resolve(output);
  }

  #idleWatchdog(): void {
    if (this.#watchdog !== undefined && this.#slots.every((s) => s.job === undefined)) {
      clearInterval(this.#watchdog);
      this.#watchdog = undefined;
    }
  }
}

function failureToError(f: JobFailure): AppError {
  return new AppError(isErrorCode(f.code) ? f.code : ErrorCode.Internal, f.message, { details: f.details });
}
