// The one FIFO of async runs: admission from a limit that may change between
// runs (reward-sandbox's CPU admission) or stay fixed (BoundedQueue). Up to `maxQueued` runs wait, FIFO; past that `run` refuses at
// once with a retryable `busy` (HTTP 504 + Retry-After on /run_code); aborting
// a caller's signal withdraws a waiting run, while a started run keeps its
// place until its function settles (a sandbox being killed still runs); time
// spent waiting is the queue's (a run's deadline starts when its function is
// called).

import { AppError, ErrorCode } from '../errors.ts';

/** What a caller needs of a queue (AdmissionQueue and BoundedQueue). */
export interface RunQueue {
  run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T>;
}

/** The limit on runs going on at once. */
export interface Admission {
  /** Runs allowed at once now, given `running`. */
  limit(running: number): number;
  /** Told on every start and end. */
  note(running: number): void;
  /** The limit can rise with time alone (then waiting runs are re-checked every `sampleMs`). */
  readonly adaptive: boolean;
  readonly sampleMs: number;
}

/** A one-shot timer (the port tests replace); returns a cancel function. */
export type QueueTimer = (ms: number, fn: () => void) => () => void;

const realTimer: QueueTimer = (ms, fn) => {
  const t = setTimeout(fn, ms);
  t.unref();
  return () => clearTimeout(t);
};

/** Options of {@link AdmissionQueue}. */
export interface AdmissionQueueOptions {
  admission: Admission;
  /** Runs allowed to wait; past this `run` refuses at once with `busy`. @default Infinity */
  maxQueued?: number;
  /** For the `busy` message. @default 'queue' */
  name?: string;
  timer?: QueueTimer;
}

interface Waiter {
  start(): void;
}

/** FIFO of runs admitted while the running count is under the admission's limit. */
export class AdmissionQueue implements RunQueue {
  readonly #admission: Admission;
  readonly #maxQueued: number;
  readonly #name: string;
  readonly #timer: QueueTimer;
  readonly #waiting: Waiter[] = [];
  #running = 0;
  #cancelRecheck: (() => void) | null = null;

  constructor(options: AdmissionQueueOptions) {
    const { admission, maxQueued = Number.POSITIVE_INFINITY, name = 'queue', timer = realTimer } = options;
    if (!(maxQueued >= 0)) throw new RangeError(`maxQueued must be >= 0, got ${maxQueued}`);
    this.#admission = admission;
    this.#maxQueued = maxQueued;
    this.#name = name;
    this.#timer = timer;
  }

  /** Runs in progress. */
  get running(): number {
    return this.#running;
  }

  /** Runs waiting to be admitted. */
  get queued(): number {
    return this.#waiting.length;
  }

  /** Runs `fn` once admitted; rejects with a retryable `busy` when the queue is full, or with the signal's reason while waiting. */
  run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    try {
      signal?.throwIfAborted();
    } catch (e) {
      return Promise.reject(e);
    }
    if (this.#waiting.length === 0 && this.#running < this.#admission.limit(this.#running)) return this.#start(fn);
    if (this.#waiting.length >= this.#maxQueued) {
      return Promise.reject(
        new AppError(ErrorCode.Busy, `${this.#name} busy: ${this.#running} running and ${this.#waiting.length} queued`, { retryable: true }),
      );
    }
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        const i = this.#waiting.indexOf(waiter);
        if (i >= 0) this.#waiting.splice(i, 1);
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          this.#start(fn).then(resolve, reject);
        },
      };
      this.#waiting.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#armRecheck();
    });
  }

  #start<T>(fn: () => Promise<T>): Promise<T> {
    this.#running += 1;
    this.#admission.note(this.#running);
    let p: Promise<T>;
    try {
      p = fn();
    } catch (e) {
      p = Promise.reject(e);
    }
    return p.finally(() => {
      this.#running -= 1;
      this.#admission.note(this.#running);
      this.#pump();
    });
  }

  /** Starts waiting runs while the limit allows. */
  #pump(): void {
    while (this.#waiting.length > 0 && this.#running < this.#admission.limit(this.#running)) this.#waiting.shift()!.start();
    this.#armRecheck();
  }

  /** While runs wait under an adaptive limit, looks again after the next CPU reading is due. */
  #armRecheck(): void {
    if (this.#cancelRecheck !== null || this.#waiting.length === 0 || !this.#admission.adaptive) return;
    this.#cancelRecheck = this.#timer(this.#admission.sampleMs, () => {
      this.#cancelRecheck = null;
      this.#pump();
    });
  }
}
