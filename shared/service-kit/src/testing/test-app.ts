import type { OpenAPIHono } from '@hono/zod-openapi';
import { createApp, type AppEnv, type AppOptions } from '../http/app.ts';
import { createLogger } from '../logger.ts';
import { createMetrics } from '../metrics.ts';

/**
 * The service app every HTTP unit test drives through `app.request()`: the real
 * chassis (request ids, problem bodies, body limit, auth, probes) with a silent
 * logger and a fresh metrics registry, so tests differ only in what they override.
 */
export function createTestApp(overrides: Partial<AppOptions> = {}): OpenAPIHono<AppEnv> {
  return createApp({
    service: 'test',
    version: 'test',
    description: 'test',
    logger: createLogger({ service: 'test', level: 'silent' }),
    metrics: createMetrics('test'),
    maxBodyBytes: 1024 * 1024,
    ...overrides,
  });
}
