import { describe, expect, it } from 'vitest';
import { AppError, ERROR_STATUS, ErrorCode, appError, fromErrorBody } from './errors.ts';

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

  it('has a named constructor per code', () => {
    const e = appError.notFound('job x', { details: { id: 'x' } });
    expect(e).toBeInstanceOf(AppError);
    expect(e).toMatchObject({ code: 'not_found', status: 404, message: 'job x', details: { id: 'x' } });
    expect(appError.upstreamError('bad reply').status).toBe(502);
    expect(Object.keys(appError)).toHaveLength(Object.keys(ErrorCode).length);
  });

  it('rebuilds a wire body with the status of its code; unknown codes become internal', () => {
    expect(fromErrorBody({ code: 'conflict', message: 'exists' })).toMatchObject({ code: 'conflict', status: 409 });
    expect(fromErrorBody({ code: 'nonsense' as ErrorCode, message: 'x' })).toMatchObject({ code: 'internal', status: 500 });
  });
});
