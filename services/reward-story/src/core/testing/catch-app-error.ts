import { AppError } from '@rl/service-kit/core';

/** The AppError `fn` throws; fails the test when it throws nothing or something else. */
export function catchAppError(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw new Error(`expected an AppError, got ${String(err)}`, { cause: err });
  }
  throw new Error('expected an AppError, nothing was thrown');
}
