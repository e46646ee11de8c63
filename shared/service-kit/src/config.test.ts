import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BaseConfig, loadConfig } from './config.ts';
import { AppError } from './errors.ts';

const Svc = BaseConfig.extend({ PORT: z.coerce.number().int().min(0).max(65535).default(8101) });

describe('loadConfig', () => {
  it('applies documented defaults and freezes the result', () => {
    const c = loadConfig(Svc, {});
    expect(c.PORT).toBe(8101);
    expect(c.NATS_URL).toBe('nats://127.0.0.1:4222');
    expect(c.NATS_ENABLED).toBe(true);
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
});
