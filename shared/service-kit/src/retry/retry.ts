import pRetry from 'p-retry';

/** What a retry is about to do (for logs and stats). */
export interface RetryInfo {
  /** The attempt that failed, 1-based. */
  attempt: number;
  /** The wait before the next attempt. */
  delayMs: number;
  error: unknown;
}

/** Options of {@link retry}: the whole policy, so each caller keeps its own. */
export interface RetryOptions {
  /** Attempts after the first. */
  retries: number;
  /** Whether a failure may be cured by another attempt; any other failure rejects at once. */
  isRetryable: (error: unknown) => boolean;
  /** The wait after failed attempt `attempt` (1-based), which may depend on the error (e.g. its Retry-After). */
  delayMs: (attempt: number, error: unknown) => number;
  /** Stops retrying: a wait ends at once and no further attempt starts; the call then rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
  /** Waits between attempts; tests pass an instant or gated one. @default a timer that rejects with the signal's reason */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Told before each wait. */
  onRetry?: (info: RetryInfo) => void;
}

/** A timer that stops early, with the signal's reason, when the signal aborts. */
export function sleepMs(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted();
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Runs `attempt` until it succeeds, fails with an error `isRetryable` refuses,
 * or `retries` more attempts have failed; then rejects with the last error.
 * p-retry runs the loop; the waits are ours (p-retry's own backoff is off) so a
 * caller's delay can read the error and tests can inject the sleep. The signal
 * stays ours too: p-retry would replace an attempt's own outcome with the abort
 * reason, while here an attempt that was running when the signal fired keeps
 * its result or its error, and only the next wait or attempt is refused.
 */
export async function retry<T>(attempt: (attemptNumber: number) => Promise<T>, options: RetryOptions): Promise<T> {
  const { retries, isRetryable, delayMs, signal, sleep = sleepMs, onRetry } = options;
  signal?.throwIfAborted();
  const boxed = async (n: number): Promise<T> => {
    try {
      return await attempt(n);
    } catch (err) {
      // p-retry turns a thrown non-Error into a TypeError; box it so callers get what was thrown.
      throw err instanceof Error ? err : new Thrown(err);
    }
  };
  try {
    return await pRetry(boxed, {
      retries,
      minTimeout: 0,
      shouldRetry: ({ error }) => signal?.aborted !== true && isRetryable(unbox(error)),
      async onFailedAttempt({ error, attemptNumber, retriesLeft }) {
        const cause = unbox(error);
        if (retriesLeft <= 0 || signal?.aborted === true || !isRetryable(cause)) return;
        const ms = delayMs(attemptNumber, cause);
        onRetry?.({ attempt: attemptNumber, delayMs: ms, error: cause });
        await sleep(ms, signal);
        // An injected sleep may ignore the signal; the next attempt must not start anyway.
        signal?.throwIfAborted();
      },
    });
  } catch (err) {
    throw unbox(err);
  }
}

class Thrown extends Error {
  readonly value: unknown;
  constructor(value: unknown) {
    super('non-Error thrown');
    this.value = value;
  }
}

function unbox(err: unknown): unknown {
  return err instanceof Thrown ? err.value : err;
}
