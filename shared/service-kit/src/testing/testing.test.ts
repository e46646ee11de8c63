import { describe, expect, it } from 'vitest';
import { AppError, ErrorCode } from '../errors.ts';
import { createTestApp, expectAppError, expectAppErrorAsync } from './index.ts';

describe('test kit', () => {
  it('builds the real chassis: probes and problem bodies', async () => {
    const app = createTestApp({ authToken: 'secret' });
    app.get('/v1/x', (c) => c.json({ ok: true }));
    expect((await app.request('/healthz')).status).toBe(200);
    const denied = await app.request('/v1/x');
    expect(denied.status).toBe(401);
    expect(((await denied.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
  });

  it('returns the AppError thrown, checks its code, and fails otherwise', async () => {
    const boom = () => {
      throw new AppError(ErrorCode.NotFound, 'x');
    };
    expect(expectAppError(boom, ErrorCode.NotFound).message).toBe('x');
    expect(() => expectAppError(boom, ErrorCode.Timeout)).toThrow(/expected an AppError with code timeout, got not_found/);
    expect(() => expectAppError(() => 1)).toThrow(/nothing was thrown/);
    expect(() =>
      expectAppError(() => {
        throw new Error('plain');
      }),
    ).toThrow(/got Error: plain/);
    expect((await expectAppErrorAsync(Promise.reject(new AppError(ErrorCode.Busy, 'b')), ErrorCode.Busy)).status).toBe(503);
    await expect(expectAppErrorAsync(Promise.resolve(1))).rejects.toThrow(/the promise resolved/);
  });
});
