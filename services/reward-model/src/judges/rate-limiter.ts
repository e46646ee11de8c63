// A judge's three limits, as verl's rate_limited reward manager has them:
// max_concurrent (a semaphore), max_rpm and max_tpm (token buckets; each
// attempt takes one request and the configured estimate of its tokens). Unlike
// verl's buckets, which hold one second of their rate, these hold one request:
// requests leave evenly spaced, so a provider counting any 60 s window never
// sees more than max_rpm (a burst at a window's edge is what earns 429s).
import { BoundedQueue } from '@rl/service-kit/core';
import { TokenBucket } from './token-bucket.ts';

/** Time as the limiter sees it; tests pass a fake one. */
export interface LimiterClock {
  now(): number;
  /** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Options of a {@link JudgeLimiter}. */
export interface JudgeLimiterOptions {
  maxConcurrent: number;
  maxRpm?: number | undefined;
  maxTpm?: number | undefined;
  /** What each request counts against max_tpm. */
  tokensPerRequest: number;
  clock: LimiterClock;
  /** For the `busy` message. */
  name: string;
}

/** Runs a judge's requests within its concurrency, request-rate and token-rate limits. */
export class JudgeLimiter {
  readonly #queue: BoundedQueue;
  readonly #rpm: TokenBucket | undefined;
  readonly #tpm: TokenBucket | undefined;
  readonly #clock: LimiterClock;
  readonly #tokensPerRequest: number;

  constructor(o: JudgeLimiterOptions) {
    this.#queue = new BoundedQueue({ concurrency: o.maxConcurrent, name: `judge ${o.name}` });
    this.#rpm = o.maxRpm === undefined ? undefined : new TokenBucket(o.maxRpm / 60, 1);
    this.#tpm = o.maxTpm === undefined ? undefined : new TokenBucket(o.maxTpm / 60, o.tokensPerRequest);
    this.#clock = o.clock;
    this.#tokensPerRequest = o.tokensPerRequest;
  }

  /**
   * Runs `fn` once a concurrency slot is free and the rates allow one more request.
   * The slot is taken before the rates (verl takes them after): a request that
   * waited for a slot then still waits its turn on the rate, so requests freed
   * together by slow answers do not leave as a burst above the rate.
   */
  run<T>(fn: () => Promise<T>, signal: AbortSignal): Promise<T> {
    return this.#queue.run(async () => {
      const now = this.#clock.now();
      const waitMs = Math.max(this.#rpm?.take(1, now) ?? 0, this.#tpm?.take(this.#tokensPerRequest, now) ?? 0);
      if (waitMs > 0) await this.#clock.sleep(waitMs, signal);
      return fn();
    }, signal);
  }
}
