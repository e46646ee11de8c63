import { describe, expect, it } from 'vitest';
import { expectAppError } from '../testing/index.ts';
import { ErrorCode } from '../errors.ts';
import { checkExposure, isLoopbackHost } from './exposure.ts';

describe('isLoopbackHost', () => {
  it.each(['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1'])('%s is loopback', (h) => {
    expect(isLoopbackHost(h)).toBe(true);
  });
  it.each(['0.0.0.0', '::', '[::]', '10.0.0.5', '192.168.1.2', 'example.org', '128.0.0.1', '::ffff:10.0.0.1'])('%s is not', (h) => {
    expect(isLoopbackHost(h)).toBe(false);
  });
});

describe('checkExposure', () => {
  it('lets loopback run without a token, quietly', () => {
    expect(checkExposure({ HOST: '127.0.0.1', ALLOW_UNAUTHENTICATED: false })).toEqual({ loopbackOnly: true, authenticated: false });
  });

  it('lets any interface run with a token, quietly', () => {
    expect(checkExposure({ HOST: '0.0.0.0', AUTH_TOKEN: 't', ALLOW_UNAUTHENTICATED: false })).toEqual({ loopbackOnly: false, authenticated: true });
  });

  it('refuses a bind beyond loopback without a token, naming the settings that fix it', () => {
    const err = expectAppError(() => checkExposure({ HOST: '0.0.0.0', ALLOW_UNAUTHENTICATED: false }), ErrorCode.InvalidConfig);
    for (const word of ['HOST=0.0.0.0', 'AUTH_TOKEN', 'HOST=127.0.0.1', 'ALLOW_UNAUTHENTICATED=true']) expect(err.message).toContain(word);
  });

  it('runs unauthenticated beyond loopback only when told, with a warning to show', () => {
    const e = checkExposure({ HOST: '::', ALLOW_UNAUTHENTICATED: true });
    expect(e).toMatchObject({ loopbackOnly: false, authenticated: false });
    expect(e.warning).toMatch(/^UNAUTHENTICATED: HTTP listens on :: without AUTH_TOKEN/);
  });
});
