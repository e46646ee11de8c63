import PQueue from 'p-queue';
import { AppError, ErrorCode } from '../errors.ts';

/** Options of a {@link BoundedQueue}. */
export interface BoundedQueueOptions {
  /** Runs executing at once (for CPU-bound work, about one per core). */
  concurrency: number;
  /** Runs allowed to wait; past this `run` refuses at once with `busy`. @default Infinity */
  maxQueued?: number;
  /** What runs here, for the `busy` message ("sandbox busy: 4 running and 64 queued"). @default 'queue' */
  name?: string;
}

/**
 * A FIFO of async runs over p-queue: at most `concurrency` run, up to
 * `maxQueued` wait, the rest are refused at once (load shedding, so a caller
 * can back off instead of piling up). Aborting a caller's signal withdraws a
 * waiting run; a started run keeps its slot until its function settles, because
 * p-queue would free the slot at the abort while the work (a sandbox being
 * killed) still runs. Time spent waiting is the queue's: a run's own deadline
 * starts when its function is called.
 */
export class BoundedQueue {
  readonly #queue: PQueue;
  readonly #limit: number;
  readonly #name: string;

  constructor(options: BoundedQueueOptions) {
    const { concurrency, maxQueued = Number.POSITIVE_INFINITY, name = 'queue' } = options;
    if (!(Number.isInteger(concurrency) && concurrency >= 1)) throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
    if (!(maxQueued >= 0)) throw new RangeError(`maxQueued must be >= 0, got ${maxQueued}`);
    this.#queue = new PQueue({ concurrency });
    this.#limit = concurrency + maxQueued;
    this.#name = name;
  }

  /** Runs in progress. */
  get running(): number {
    return this.#queue.pending;
  }

  /** Runs waiting for a slot. */
  get queued(): number {
    return this.#queue.size;
  }

  /** Runs `fn` when a slot is free; rejects with a retryable `busy` when the queue is full, or with the signal's reason while waiting. */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted();
    if (this.running + this.queued >= this.#limit) {
      throw new AppError(ErrorCode.Busy, `${this.#name} busy: ${this.running} running and ${this.queued} queued`, { retryable: true });
    }
    if (signal === undefined) return this.#queue.add(fn);
    // The signal p-queue sees aborts only while the run waits (see the class comment).
    const waiting = new AbortController();
    let started = false;
    const onAbort = () => {
      if (!started) waiting.abort(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      return await this.#queue.add(
        () => {
          started = true;
          return fn();
        },
        { signal: waiting.signal },
      );
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }
}
