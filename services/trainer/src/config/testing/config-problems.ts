// The problems a config validation error lists, for tests that check which keys were refused.
import { expect } from 'vitest';
import { AppError, ErrorCode } from '@rl/service-kit';
import type { ConfigProblem } from '../index.ts';

/** Runs `fn`, expects it to throw a validation AppError, and returns the problems it names. */
export function problemsOf(fn: () => unknown): ConfigProblem[] {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe(ErrorCode.ValidationFailed);
    return (err as AppError).details?.['problems'] as ConfigProblem[];
  }
  throw new Error('expected a validation error');
}
