// verl's AsyncTokenBucket (reward_loop/limited.py) as a reservation: the bucket
// starts full, refills at `ratePerSecond` up to `capacity`, and a take larger
// than what is there drives it below zero, so the taker learns how long to wait
// and later takers queue behind it (first come, first served; no polling loop).
// Pure: the caller passes the time.

/** A token bucket whose takes reserve capacity and return the wait before it is theirs. */
export class TokenBucket {
  readonly #ratePerSecond: number;
  readonly #capacity: number;
  #tokens: number;
  #lastMs: number | undefined;

  constructor(ratePerSecond: number, capacity: number) {
    if (!(ratePerSecond > 0 && capacity > 0)) throw new RangeError(`rate and capacity must be positive, got ${ratePerSecond}, ${capacity}`);
    this.#ratePerSecond = ratePerSecond;
    this.#capacity = capacity;
    this.#tokens = capacity;
  }

  /** Takes `n` tokens at `nowMs`; returns how many ms from now they are available (0: at once). */
  take(n: number, nowMs: number): number {
    const elapsedMs = this.#lastMs === undefined ? 0 : Math.max(0, nowMs - this.#lastMs);
    this.#lastMs = Math.max(nowMs, this.#lastMs ?? nowMs);
    this.#tokens = Math.min(this.#capacity, this.#tokens + (elapsedMs / 1000) * this.#ratePerSecond);
    this.#tokens -= n;
    return this.#tokens >= 0 ? 0 : (-this.#tokens / this.#ratePerSecond) * 1000;
  }
}
