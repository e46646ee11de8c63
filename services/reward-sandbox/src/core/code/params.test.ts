import { describe, expect, it } from 'vitest';
import { AppError, ErrorCode } from '@rl/service-kit/core';
import { parseCodeParams } from './params.ts';

describe('parseCodeParams', () => {
  it("defaults are verl's sandbox_fusion compute_score defaults", () => {
    expect(parseCodeParams(undefined)).toEqual({ continuous: false, timeout: 10, memory_limit_mb: 1024, language: 'python' });
  });

  it('accepts verl keyword names', () => {
    expect(parseCodeParams({ continuous: true, timeout: 2.5, memory_limit_mb: -1, language: 'cpp' })).toEqual({
      continuous: true,
      timeout: 2.5,
      memory_limit_mb: -1,
      language: 'cpp',
    });
  });

  it.each<[Record<string, unknown>, RegExp]>([
    [{ timeout_ms: 100 }, /^params: Unrecognized key/],
    [{ timeout: 0 }, /^params\.timeout:/],
    [{ timeout: 601 }, /^params\.timeout:/],
    [{ memory_limit_mb: 0 }, /^params\.memory_limit_mb: must be positive/],
    [{ memory_limit_mb: 1.5 }, /^params\.memory_limit_mb:/],
    [{ continuous: 'yes' }, /^params\.continuous:/],
    [{ language: 'cobol' }, /^params\.language:/],
  ])('rejects %j', (raw, message) => {
    let caught: unknown;
    try {
      parseCodeParams(raw);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(AppError);
    expect(caught).toMatchObject({ code: ErrorCode.InvalidParams, status: 400 });
    expect((caught as AppError).message).toMatch(message);
  });
});
