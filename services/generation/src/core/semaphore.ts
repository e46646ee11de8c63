/** A counting semaphore: at most `limit` holders at once, waiters served first come first served. */
export class Semaphore {
  readonly limit: number;
  #held = 0;
  readonly #waiters: Array<() => void> = [];

  constructor(limit: number) {
    if (!(Number.isInteger(limit) && limit >= 1)) throw new RangeError(`semaphore limit must be a positive integer, got ${limit}`);
    this.limit = limit;
  }

  /** Holders right now. */
  get held(): number {
    return this.#held;
  }

  /** Callers waiting for a slot. */
  get waiting(): number {
    return this.#waiters.length;
  }

  /** Resolves with a release function once a slot is free; rejects if `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.#held < this.limit) {
      this.#held++;
      return Promise.resolve(this.#releaser());
    }
    return new Promise((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        this.#held++;
        resolve(this.#releaser());
      };
      const onAbort = () => {
        const i = this.#waiters.indexOf(grant);
        if (i >= 0) this.#waiters.splice(i, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(grant);
    });
  }

  /** Runs `fn` while holding a slot. */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await this.acquire(signal);
    try {
      return await fn();
    } finally {
      release();
    }
  }

  #releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#held--;
      this.#waiters.shift()?.();
    };
  }
}
