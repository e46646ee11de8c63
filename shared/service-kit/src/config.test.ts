import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BaseConfig, loadConfig } from './config.ts';
import { AppError, ErrorCode } from './errors.ts';
import { expectAppError } from './testing/index.ts';

const Svc = BaseConfig.extend({ PORT: z.coerce.number().int().min(0).max(65535).default(8101) });

describe('loadConfig', () => {
  it('applies documented defaults and freezes the result', () => {
    const c = loadConfig(Svc, {});
    expect(c.PORT).toBe(8101);
    expect(c.NATS_URL).toBe('nats://127.0.0.1:4222');
    expect(c.NATS_ENABLED).toBe(true);
    expect(c.NATS_JS_REPLICAS).toBe(1);
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('coerces values from strings', () => {
    expect(loadConfig(Svc, { PORT: '9000', NATS_ENABLED: 'false' })).toMatchObject({ PORT: 9000, NATS_ENABLED: false });
  });

  it('reports every invalid key at once', () => {
    try {
      loadConfig(Svc, { PORT: 'eighty', LOG_LEVEL: 'loud', MAX_BODY_BYTES: '-1' });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(AppError);
      const msg = (e as AppError).message;
      for (const key of ['PORT', 'LOG_LEVEL', 'MAX_BODY_BYTES']) expect(msg).toContain(key);
    }
  });

  it('listens on loopback by default and refuses a wider bind without a token or the explicit opt-out', () => {
    expect(loadConfig(Svc, {})).toMatchObject({ HOST: '127.0.0.1', ALLOW_UNAUTHENTICATED: false });
    const err = expectAppError(() => loadConfig(Svc, { HOST: '0.0.0.0' }), ErrorCode.InvalidConfig);
    expect(err.message).toContain('AUTH_TOKEN is not set');
    expect(loadConfig(Svc, { HOST: '0.0.0.0', AUTH_TOKEN: 't' }).HOST).toBe('0.0.0.0');
    expect(loadConfig(Svc, { HOST: '0.0.0.0', ALLOW_UNAUTHENTICATED: 'true' }).ALLOW_UNAUTHENTICATED).toBe(true);
  });

  it('takes JetStream replicas from 1 to 5 (the most a stream has) and names the key otherwise', () => {
    expect(loadConfig(Svc, { NATS_JS_REPLICAS: '3' }).NATS_JS_REPLICAS).toBe(3);
    for (const bad of ['0', '6', 'three'])
      expect(expectAppError(() => loadConfig(Svc, { NATS_JS_REPLICAS: bad }), ErrorCode.InvalidConfig).message).toContain('NATS_JS_REPLICAS');
  });

  it('refuses a NATS user that cannot name its inboxes', () => {
    const err = expectAppError(() => loadConfig(Svc, { NATS_USER: 'a.b' }), ErrorCode.InvalidConfig);
    expect(err.message).toContain('NATS_USER');
  });
});
