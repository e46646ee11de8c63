import { AppError, ErrorCode } from '@rl/service-kit';

/** Options of {@link ExecQueue}. */
export interface ExecQueueOptions {
  /** Runs executing at once (sandboxes are CPU-bound: about one per core). */
  concurrency: number;
  /** Runs allowed to wait; past this the queue refuses with `busy`. */
  maxQueued: number;
}

interface Waiter {
  start: () => void;
  reject: (err: unknown) => void;
}

/**
 * A bounded FIFO of executions: at most `concurrency` run, up to `maxQueued`
 * wait, the rest are refused at once with a retryable `busy` error. Time spent
 * waiting is the queue's, not the run's: a run's own deadline starts when its
 * function is called.
 */
export class ExecQueue {
  readonly #opts: ExecQueueOptions;
  readonly #waiting: Waiter[] = [];
  #running = 0;

  constructor(options: ExecQueueOptions) {
    this.#opts = options;
  }

  /** Executions in progress. */
  get running(): number {
    return this.#running;
  }

  /** Executions waiting for a slot. */
  get queued(): number {
    return this.#waiting.length;
  }

  /** Runs `fn` when a slot is free; rejects with `busy` when the queue is full, or with the signal's reason. */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted();
    if (this.#running >= this.#opts.concurrency) {
      if (this.#waiting.length >= this.#opts.maxQueued) {
        throw new AppError(ErrorCode.Busy, `sandbox busy: ${this.#running} running and ${this.#waiting.length} queued`, { retryable: true });
      }
      await new Promise<void>((resolve, reject) => {
        const waiter: Waiter = { start: resolve, reject };
        this.#waiting.push(waiter);
        signal?.addEventListener(
          'abort',
          () => {
            const i = this.#waiting.indexOf(waiter);
            if (i >= 0) {
              this.#waiting.splice(i, 1);
              reject(signal.reason);
            }
          },
          { once: true },
        );
      });
    }
    this.#running++;
    try {
      return await fn();
    } finally {
      this.#running--;
      this.#waiting.shift()?.start();
    }
  }
}
