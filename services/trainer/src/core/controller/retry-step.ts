// Retrying a training step that failed on the bus (a nats-server restart, a
// generation service that died mid-rollout, a reward service that stayed away
// longer than the reward client's own retries). Only failures whose AppError
// says `retryable` are retried (the kit's table: the bus or a service was
// briefly away), never a validation error or a bug, and only
// a bounded number of times with exponential backoff; the last error is thrown.
//
// How a retried step behaves. The step runs again from its rollout on the same
// batch (the same rows, epoch and weights version; runStep derives the rollout
// seed and the update seed from the step number), so it reproduces the same
// samples: the generation service seeds each sample from the request's seed and
// still serves the version the step started from. What must not happen twice is
// the update. Policy calls that lose their connection are retried by the worker
// client with the same body, and the worker answers a repeated `update` or
// `sft_step` of a step it already applied with the reply it stored
// (policy/applied-once.ts). So when an update reached the worker but its reply
// was lost, the weights move once whether the repeat comes from the client or
// from a re-run of the step here. We re-run rather than "skip to publish"
// because a step's metrics are built from all its stages in one place (step.ts)
// and the re-run reproduces them; a re-run after an applied update only
// recomputes old log-probs the worker does not train on again. One caveat: an
// adaptive KL-in-reward controller moves once per attempt that reached the
// advantage stage.
import { setTimeout as delay } from 'node:timers/promises';
import { AppError, ErrorCode, retry } from '@rl/service-kit/core';

/** What a retry is about to do (for the job's log). */
export interface StepRetry {
  step: number;
  /** The attempt that failed, 1-based. */
  attempt: number;
  attempts: number;
  delayMs: number;
  error: AppError;
}

/** Options of {@link retryStep}. */
export interface StepRetryOptions {
  /** Attempts in all, the first included (1: no retry). @default 6 */
  attempts?: number;
  /** Delay before the first retry; doubles with each further one. @default 1000 */
  baseDelayMs?: number;
  /** Cap of any delay. @default 30000 */
  maxDelayMs?: number;
  /** Waits between attempts; tests pass a gate. @default node:timers/promises setTimeout */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Told before each retry. */
  onRetry?: (retry: StepRetry) => void;
  /** Stops retrying (and waiting) when aborted. */
  signal?: AbortSignal;
}

/** Defaults of {@link StepRetryOptions}. */
export const DEFAULT_STEP_RETRY = { attempts: 6, baseDelayMs: 1_000, maxDelayMs: 30_000 } as const;

const defaultSleep = (ms: number, signal: AbortSignal): Promise<void> => delay(ms, undefined, { signal });

/** Delay before retry number `retry` (1-based): min(max, base * 2^(retry-1)); no jitter, one controller retries alone. */
export function stepRetryDelayMs(retry: number, baseDelayMs: number, maxDelayMs: number): number {
  return Math.min(maxDelayMs, baseDelayMs * 2 ** (retry - 1));
}

/** Whether `err` is a failure another attempt may cure: an AppError that says so (a bug is never retried). */
function isRetryableStepError(err: unknown): err is AppError {
  return err instanceof AppError && err.retryable;
}

/** The job log line of a retry. */
export function describeStepRetry(r: StepRetry): string {
  return `retrying step ${r.step} in ${r.delayMs} ms: attempt ${r.attempt} of ${r.attempts} failed (${r.error.code}: ${r.error.message})`;
}

/** Runs `run` (one attempt of step `step`) until it succeeds, fails for good, or the attempts are spent. */
export async function retryStep<T>(step: number, run: (attempt: number) => Promise<T>, options: StepRetryOptions = {}): Promise<T> {
  const {
    attempts = DEFAULT_STEP_RETRY.attempts,
    baseDelayMs = DEFAULT_STEP_RETRY.baseDelayMs,
    maxDelayMs = DEFAULT_STEP_RETRY.maxDelayMs,
    sleep = defaultSleep,
    onRetry,
    signal = new AbortController().signal,
  } = options;
  if (!(Number.isInteger(attempts) && attempts >= 1))
    throw new AppError(ErrorCode.InvalidParams, `step retry attempts must be a positive integer, got ${attempts}`);
  return retry(run, {
    retries: attempts - 1,
    isRetryable: isRetryableStepError,
    delayMs: (attempt) => stepRetryDelayMs(attempt, baseDelayMs, maxDelayMs),
    signal,
    sleep: (ms) => sleep(ms, signal),
    onRetry: ({ attempt, delayMs, error }) => onRetry?.({ step, attempt, attempts, delayMs, error: error as AppError }),
  });
}
