// Kept apart from score-batch.ts so the main thread can shape item errors
// without importing the scorers (and mathjs): those live in the workers only.
import { AppError, ErrorCode, type ErrorBody } from '@rl/service-kit/core';

/**
 * The per-item error slot of the batch contract: exactly `{error: {code, message}}`.
 * Errors that are not {@link AppError}s are scorer failures, reported with their message.
 */
export function toItemError(err: unknown): { error: ErrorBody } {
  if (err instanceof AppError) return { error: { code: err.code, message: err.message } };
  return { error: { code: ErrorCode.ScorerFailed, message: err instanceof Error ? err.message : String(err) } };
}
