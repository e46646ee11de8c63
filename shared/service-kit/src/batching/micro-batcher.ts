import { AppError, ErrorCode } from '../errors.ts';

/** Options of a {@link MicroBatcher}. */
export interface MicroBatcherOptions<I, O> {
  /** Runs one batch of items that share `key`; must resolve to one result per item, in item order. */
  run: (items: readonly I[], key: string) => Promise<readonly O[]>;
  /** Most items in one run. @default 32 */
  maxBatch?: number;
  /** Cost of one item (e.g. its attention area); a run stays within `maxBatchCost` unless one item alone exceeds it. @default 1 */
  cost?: (item: I) => number;
  /** @default Infinity */
  maxBatchCost?: number;
  /** How long the first waiting item waits for company before its run; 0 = until the current event-loop turn ends. @default 2 */
  windowMs?: number;
  /** Runs in flight at once; items arriving meanwhile queue for the next runs. @default 1 */
  maxConcurrentRuns?: number;
}

/** Defaults of {@link MicroBatcherOptions}. */
export const DEFAULT_MAX_BATCH = 32;
const DEFAULT_BATCH_WINDOW_MS = 2;

/** Options of one {@link MicroBatcher.submit} call. */
export interface SubmitOptions {
  /** Items batch only with items of the same key (e.g. equal sampling parameters). @default '' */
  key?: string | undefined;
  /** Aborting rejects the call with `signal.reason` and withdraws its queued items. */
  signal?: AbortSignal | undefined;
}

interface Request<O> {
  key: string;
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
 * Collects items from concurrent callers into shared runs. Keys take turns so
 * none starves; a run fails only the callers with an item in it. An aborted
 * caller's queued items are dropped; items already running finish and their
 * results are discarded (a run in progress cannot be interrupted).
 */
export class MicroBatcher<I, O> {
  readonly #run: (items: readonly I[], key: string) => Promise<readonly O[]>;
  readonly #maxBatch: number;
  readonly #cost: (item: I) => number;
  readonly #maxCost: number;
  readonly #windowMs: number;
  readonly #maxConcurrentRuns: number;
  // Map order is the turn order of the keys: a served key re-enters at the back.
  readonly #queues = new Map<string, Job<I, O>[]>();
  #queued = 0;
  #running = 0;
  #cancelTimer: (() => void) | undefined;
  #closed = false;

  constructor(options: MicroBatcherOptions<I, O>) {
    const { run, maxBatch = DEFAULT_MAX_BATCH, cost = () => 1, maxBatchCost = Number.POSITIVE_INFINITY } = options;
    const { windowMs = DEFAULT_BATCH_WINDOW_MS, maxConcurrentRuns = 1 } = options;
    if (!Number.isInteger(maxBatch) || maxBatch < 1) throw new RangeError(`maxBatch must be a positive integer, got ${maxBatch}`);
    if (!(maxBatchCost > 0)) throw new RangeError(`maxBatchCost must be > 0, got ${maxBatchCost}`);
    if (!(windowMs >= 0)) throw new RangeError(`windowMs must be >= 0, got ${windowMs}`);
    if (!Number.isInteger(maxConcurrentRuns) || maxConcurrentRuns < 1) {
      throw new RangeError(`maxConcurrentRuns must be a positive integer, got ${maxConcurrentRuns}`);
    }
    this.#run = run;
    this.#maxBatch = maxBatch;
    this.#cost = cost;
    this.#maxCost = maxBatchCost;
    this.#windowMs = windowMs;
    this.#maxConcurrentRuns = maxConcurrentRuns;
  }

  /** Results for `items` in order; rejects with `signal.reason` when aborted first. */
  submit(items: readonly I[], options: SubmitOptions = {}): Promise<O[]> {
    const { key = '', signal } = options;
    if (this.#closed) return Promise.reject(closedError());
    if (signal?.aborted === true) return Promise.reject(signal.reason);
    if (items.length === 0) return Promise.resolve([]);
    const { promise, resolve, reject } = Promise.withResolvers<O[]>();
    const request: Request<O> = { key, results: new Array<O>(items.length), remaining: items.length, settled: false, resolve, reject };
    if (signal !== undefined) {
      const onAbort = () => this.#fail(request, signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      const detach = () => signal.removeEventListener('abort', onAbort);
      promise.then(detach, detach);
    }
    let queue = this.#queues.get(key);
    if (queue === undefined) this.#queues.set(key, (queue = []));
    items.forEach((item, index) => queue.push({ item, request, index }));
    this.#queued += items.length;
    this.#schedule(queue);
    return promise;
  }

  /** Items waiting for a run. */
  get queued(): number {
    return this.#queued;
  }

  /** Rejects everything still queued with `unavailable` and refuses new work; runs in flight finish. */
  close(): void {
    this.#closed = true;
    this.#clearTimer();
    const err = closedError();
    const requests = new Set([...this.#queues.values()].flatMap((queue) => queue.map((job) => job.request)));
    for (const request of requests) this.#fail(request, err);
  }

  #schedule(changed: Job<I, O>[]): void {
    if (this.#running >= this.#maxConcurrentRuns) return;
    // A full batch gains nothing from waiting out the window.
    if (this.#fitting(changed) < changed.length || changed.length >= this.#maxBatch) this.#flush();
    else if (this.#cancelTimer === undefined) this.#startTimer();
  }

  #startTimer(): void {
    const flush = () => {
      this.#cancelTimer = undefined;
      this.#flush();
    };
    // A zero window still merges calls made in the same tick, without setTimeout's 1 ms floor.
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
    while (this.#running < this.#maxConcurrentRuns) {
      const next = this.#queues.entries().next();
      if (next.done === true) return;
      const [key, queue] = next.value;
      const jobs = queue.splice(0, this.#fitting(queue));
      this.#queues.delete(key);
      if (queue.length > 0) this.#queues.set(key, queue);
      this.#queued -= jobs.length;
      this.#running++;
      void this.#runJobs(key, jobs);
    }
  }

  /** How many items from the head of `queue` fit one run (at least one). */
  #fitting(queue: readonly Job<I, O>[]): number {
    let total = 0;
    let n = 0;
    for (const job of queue) {
      if (n >= this.#maxBatch) break;
      total += this.#cost(job.item);
      if (n > 0 && total > this.#maxCost) break;
      n++;
    }
    return n;
  }

  async #runJobs(key: string, jobs: Job<I, O>[]): Promise<void> {
    try {
      const results = await this.#run(
        jobs.map((j) => j.item),
        key,
      );
      if (results.length !== jobs.length) {
        throw new AppError(ErrorCode.Internal, `batch runner returned ${results.length} results for ${jobs.length} items`);
      }
      jobs.forEach((job, i) => this.#deliver(job, results[i] as O));
    } catch (err) {
      for (const job of jobs) this.#fail(job.request, err);
    } finally {
      this.#running--;
      // Items that queued during this run have already waited a whole run: go now.
      if (this.#queued > 0 && !this.#closed) this.#flush();
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
    const queue = this.#queues.get(request.key);
    if (queue !== undefined) {
      const kept = queue.filter((job) => job.request !== request);
      this.#queued -= queue.length - kept.length;
      if (kept.length === 0) this.#queues.delete(request.key);
      else queue.splice(0, queue.length, ...kept);
    }
    request.reject(err);
  }
}

function closedError(): AppError {
  return new AppError(ErrorCode.Unavailable, 'micro-batcher is closed', { retryable: true });
}
