import type { Rng } from '@rl/service-kit';

/** Exponential backoff settings. */
export interface BackoffOptions {
  /** Delay before the first retry, before jitter. */
  baseMs: number;
  /** Cap of any delay. */
  maxMs: number;
}

/**
 * Delay before retry number `attempt` (0-based): min(max, base * 2^attempt),
 * with "equal jitter" (half fixed, half uniform) so instances that failed
 * together do not retry together, yet every retry still waits.
 */
export function backoffDelayMs(attempt: number, options: BackoffOptions, rng: Rng): number {
  const ceiling = Math.min(options.maxMs, options.baseMs * 2 ** attempt);
  return Math.round(ceiling / 2 + rng.next() * (ceiling / 2));
}
