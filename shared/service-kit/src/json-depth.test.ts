import { describe, expect, it } from 'vitest';
import { ErrorCode } from './errors.ts';
import { assertJsonDepth } from './json-depth.ts';
import { expectAppError } from './testing/app-error.ts';

const nest = (depth: number, inner = '1') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;

describe('assertJsonDepth', () => {
  it('accepts nesting up to the limit, whatever strings contain', () => {
    expect(() => assertJsonDepth(nest(64))).not.toThrow();
    expect(() => assertJsonDepth(JSON.stringify({ a: '[[[[{{{{', b: ['\\"[[[['] }), 'body', 3)).not.toThrow();
  });

  it('refuses deeper nesting with a 400 naming the path', () => {
    const flat = expectAppError(() => assertJsonDepth(nest(65)), ErrorCode.ValidationFailed);
    expect(flat.status).toBe(400);
    expect(flat.message).toBe(`invalid body: ${'[0]'.repeat(64)} nests deeper than 64 levels`);
    const keyed = expectAppError(() => assertJsonDepth(`{"items": [{"x": 1}, {"label": {"a\\"b": ${nest(10)}}}]}`, 'payload', 6), ErrorCode.ValidationFailed);
    expect(keyed.message).toBe('invalid payload: items[1].label.a"b[0][0] nests deeper than 6 levels');
    expect(keyed.details).toEqual({ issues: [{ path: 'items[1].label.a"b[0][0]', message: 'nests deeper than 6 levels' }] });
  });

  it('scans a hostile body in one pass, without recursion', () => {
    const err = expectAppError(() => assertJsonDepth(nest(1_000_000)), ErrorCode.ValidationFailed);
    expect(err.message).toBe(`invalid body: ${'[0]'.repeat(64)} nests deeper than 64 levels`);
  });
});
