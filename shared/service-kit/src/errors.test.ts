import { describe, expect, it } from 'vitest';
import { AppError, ERROR_STATUS, ErrorCode, fromErrorBody } from './errors.ts';

describe('error codes', () => {
  it('gives every code a status and a retry default in one table', () => {
    expect(Object.keys(ERROR_STATUS).sort()).toEqual(Object.values(ErrorCode).sort());
    for (const code of Object.values(ErrorCode)) {
      const e = new AppError(code, 'x');
      expect([e.status, e.retryable]).toEqual([ERROR_STATUS[code].status, ERROR_STATUS[code].retryable]);
    }
  });

  it('lets a site say a normally final error may be retried', () => {
    expect(new AppError(ErrorCode.Internal, 'x', { retryable: true }).retryable).toBe(true);
  });

  it('rebuilds a wire body with the status of its code; unknown codes become internal', () => {
    expect(fromErrorBody({ code: 'conflict', message: 'exists' })).toMatchObject({ code: 'conflict', status: 409 });
    expect(fromErrorBody({ code: 'nonsense' as ErrorCode, message: 'x' })).toMatchObject({ code: 'internal', status: 500 });
  });
});
