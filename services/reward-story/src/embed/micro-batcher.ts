import { AppError, ErrorCode } from '@rl/service-kit';

/** Options of a {@link MicroBatcher}. */
export interface MicroBatcherOptions<I, O> {
  /** Runs one batch; must resolve to one result per item, in item order. */
  runBatch: (items: readonly I[]) => Promise<readonly O[]>;
  /** Most items in one run. @default 32 */
  maxBatch?: number;
  /** How long the first waiting item waits for company before its batch runs; 0 = until the current tick ends. @default 2 */
  windowMs?: number;
  /** Runs in flight at once; items arriving meanwhile queue for the next run. @default 1 */
  maxConcurrentRuns?: number;
}

/** Defaults of {@link MicroBatcherOptions}. */
export const DEFAULT_MAX_BATCH = 32;
export const DEFAULT_BATCH_WINDOW_MS = 2;

interface Request<O> {
  results: O[];
  remaining: number;
  settled: boolean;
  resolve: (results: O[]) => void;
  reject: (err: unknown) => void;
}

interface Job<I, O> {
  item: I;
  request: Request<O>;
  index: number;
}

/**
 * Collects items from concurrent callers into shared runs of `runBatch`.
 * A run fails only the callers with an item in it; an aborted caller's queued
 * items are dropped (items already running finish, and their results are
 * discarded: a run in progress cannot be interrupted).
 */
export class MicroBatcher<I, O> {
  readonly #runBatch: (items: readonly I[]) => Promise<readonly O[]>;
  readonly #maxBatch: number;
  readonly #windowMs: number;
  readonly #maxConcurrentRuns: number;
  #queue: Job<I, O>[] = [];
  #running = 0;
  #cancelTimer: (() => void) | undefined;
  #closed = false;

  constructor(options: MicroBatcherOptions<I, O>) {
    const { runBatch, maxBatch = DEFAULT_MAX_BATCH, windowMs = DEFAULT_BATCH_WINDOW_MS, maxConcurrentRuns = 1 } = options;
    if (!Number.isInteger(maxBatch) || maxBatch < 1) throw new RangeError(`maxBatch must be a positive integer, got ${maxBatch}`);
    if (!(windowMs >= 0)) throw new RangeError(`windowMs must be >= 0, got ${windowMs}`);
    if (!Number.isInteger(maxConcurrentRuns) || maxConcurrentRuns < 1) {
      throw new RangeError(`maxConcurrentRuns must be a positive integer, got ${maxConcurrentRuns}`);
    }
    this.#runBatch = runBatch;
    this.#maxBatch = maxBatch;
    this.#windowMs = windowMs;
    this.#maxConcurrentRuns = maxConcurrentRuns;
  }

  /** Results for `items` in order; rejects with `signal.reason` when aborted first. */
  submit(items: readonly I[], signal?: AbortSignal): Promise<O[]> {
    if (this.#closed) return Promise.reject(closedError());
    if (signal?.aborted === true) return Promise.reject(signal.reason);
    if (items.length === 0) return Promise.resolve([]);
    const { promise, resolve, reject } = Promise.withResolvers<O[]>();
    const request: Request<O> = { results: new Array<O>(items.length), remaining: items.length, settled: false, resolve, reject };
    if (signal !== undefined) {
      const onAbort = () => this.#fail(request, signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      const detach = () => signal.removeEventListener('abort', onAbort);
      promise.then(detach, detach);
    }
    items.forEach((item, index) => this.#queue.push({ item, request, index }));
    this.#schedule();
    return promise;
  }

  /** Items waiting for a run. */
  get queued(): number {
    return this.#queue.length;
  }

  /** Rejects everything still queued with `unavailable`; runs in flight finish. */
  close(): void {
    this.#closed = true;
    this.#clearTimer();
    const err = closedError();
    for (const job of this.#queue.splice(0)) this.#fail(job.request, err);
  }

  #schedule(): void {
    if (this.#queue.length === 0 || this.#running >= this.#maxConcurrentRuns) return;
    if (this.#queue.length >= this.#maxBatch) {
      this.#flush();
    } else if (this.#cancelTimer === undefined) {
      this.#startTimer();
    }
  }

  #startTimer(): void {
    const flush = () => {
      this.#cancelTimer = undefined;
      this.#flush();
    };
    // A zero window still merges calls made in the same tick, without
    // setTimeout's 1 ms floor.
    if (this.#windowMs === 0) {
      const handle = setImmediate(flush);
      this.#cancelTimer = () => clearImmediate(handle);
    } else {
      const handle = setTimeout(flush, this.#windowMs);
      this.#cancelTimer = () => clearTimeout(handle);
    }
  }

  #clearTimer(): void {
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
  }

  #flush(): void {
    this.#clearTimer();
    const jobs = this.#queue.splice(0, this.#maxBatch);
    if (jobs.length === 0) return;
    this.#running++;
    void this.#run(jobs);
  }

  async #run(jobs: Job<I, O>[]): Promise<void> {
    try {
      const results = await this.#runBatch(jobs.map((j) => j.item));
      if (results.length !== jobs.length) {
        throw new AppError(ErrorCode.Internal, `batch runner returned ${results.length} results for ${jobs.length} items`);
      }
      jobs.forEach((job, i) => this.#deliver(job, results[i] as O));
    } catch (err) {
      for (const job of jobs) this.#fail(job.request, err);
    } finally {
      this.#running--;
      // Items that queued during this run have already waited a whole run: go now.
      if (this.#queue.length > 0 && !this.#closed) this.#flush();
      this.#schedule();
    }
  }

  #deliver(job: Job<I, O>, result: O): void {
    const request = job.request;
    if (request.settled) return;
    request.results[job.index] = result;
    request.remaining--;
    if (request.remaining === 0) {
      request.settled = true;
      request.resolve(request.results);
    }
  }

  #fail(request: Request<O>, err: unknown): void {
    if (request.settled) return;
    request.settled = true;
    // Its queued items would be wasted work: drop them.
    this.#queue = this.#queue.filter((job) => job.request !== request);
    request.reject(err);
  }
}

function closedError(): AppError {
  return new AppError(ErrorCode.Unavailable, 'embedder is closed', { status: 503, retryable: true });
}
