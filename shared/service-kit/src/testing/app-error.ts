import { AppError, type ErrorCode } from '../errors.ts';

function asAppError(err: unknown, code: ErrorCode | undefined): AppError {
  if (!(err instanceof AppError)) throw new Error(`expected an AppError${code === undefined ? '' : ` (${code})`}, got ${String(err)}`, { cause: err });
  if (code !== undefined && err.code !== code) throw new Error(`expected an AppError with code ${code}, got ${err.code}: ${err.message}`, { cause: err });
  return err;
}

/** The AppError `fn` throws (with `code`, when given); fails the test when it throws nothing or something else. */
export function expectAppError(fn: () => unknown, code?: ErrorCode): AppError {
  try {
    fn();
  } catch (err) {
    return asAppError(err, code);
  }
  throw new Error('expected an AppError, nothing was thrown');
}

/** The AppError `promise` rejects with (with `code`, when given); fails the test when it resolves or rejects otherwise. */
export async function expectAppErrorAsync(promise: Promise<unknown>, code?: ErrorCode): Promise<AppError> {
  try {
    await promise;
  } catch (err) {
    return asAppError(err, code);
  }
  throw new Error('expected an AppError, the promise resolved');
}
