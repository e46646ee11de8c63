import { z } from 'zod';
import { AppError, ErrorCode } from './errors.ts';

/** Settings every service reads from the environment. Each field documents its default. */
export const BaseConfig = z.object({
  /** Bind address of the HTTP server. @default '0.0.0.0' */
  HOST: z.string().min(1).default('0.0.0.0'),
  /** NATS server URL(s), comma-separated. @default 'nats://127.0.0.1:4222' */
  NATS_URL: z.string().min(1).default('nats://127.0.0.1:4222'),
  /** Optional NATS user/password or token auth for deployments. */
  NATS_USER: z.string().optional(),
  NATS_PASS: z.string().optional(),
  NATS_TOKEN: z.string().optional(),
  /** Connect without NATS (HTTP only) when 'false'. @default true */
  NATS_ENABLED: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  /** Optional bearer token required on every HTTP route except health probes. */
  AUTH_TOKEN: z.string().min(1).optional(),
  /** pino level. @default 'info' */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Largest accepted HTTP body and reassembled NATS payload, in bytes. @default 16 MiB */
  MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(16 * 1024 * 1024),
  /** How long graceful shutdown waits for in-flight work. @default 10000 */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().nonnegative().default(10_000),
  /** Timeout of each NATS chunk pull and outbound request. @default 30000 */
  NATS_REQUEST_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
});
/** Parsed base settings. */
export type BaseConfig = z.infer<typeof BaseConfig>;

/**
 * Parses `env` with `schema` once and freezes the result. Every invalid key is
 * reported at once, so a misconfigured deployment is fixed in one round.
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: Record<string, string | undefined>): Readonly<z.infer<S>> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new AppError(ErrorCode.InvalidConfig, `invalid configuration: ${problems.join('; ')}`, {
      details: { problems },
    });
  }
  return Object.freeze(parsed.data);
}
