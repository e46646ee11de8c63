// Failures of the worker machinery itself (never of a program: those are results).
// The runner throws these; the service answers them as SandboxFusion's
// SandboxError. Callers branch on `code`, never on the message.

import { CodedError } from '@rl/service-kit';

/** Stable codes of {@link JsWorkerError}. */
export const JsWorkerErrorCode = {
  /** A worker did not say it was ready within the start-up timeout. */
  StartTimeout: 'JS_WORKER_START_TIMEOUT',
  /** A worker exited (or could not be spawned) before it was ready. */
  StartFailed: 'JS_WORKER_START_FAILED',
  /** The address-space limit could not be applied to a new worker. */
  LimitFailed: 'JS_WORKER_LIMIT_FAILED',
  /** A worker died during a run, and not of its memory limit. */
  Crashed: 'JS_WORKER_CRASHED',
  /** A worker reported that the sandbox failed on this run. */
  RunFailed: 'JS_WORKER_RUN_FAILED',
  /** A worker sent a message that is not in the protocol. */
  Protocol: 'JS_WORKER_PROTOCOL',
  /** The runner was closed (service shutdown). */
  Closed: 'JS_WORKER_CLOSED',
} as const;
export type JsWorkerErrorCode = (typeof JsWorkerErrorCode)[keyof typeof JsWorkerErrorCode];

/** A failure of a JavaScript worker process or of the pool around it. */
export class JsWorkerError extends CodedError<JsWorkerErrorCode> {
  override readonly name = 'JsWorkerError';
}
