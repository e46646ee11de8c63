import { z } from 'zod';
import { AppError, ErrorCode } from './errors.ts';
import { checkExposure, type ExposureSettings } from './http/exposure.ts';

/** Settings every service reads from the environment. Each field documents its default. */
export const BaseConfig = z.object({
  /**
   * Bind address of the HTTP server. Loopback by default: a deployment opts in
   * to other interfaces, and then needs `AUTH_TOKEN` (or `ALLOW_UNAUTHENTICATED`).
   * @default '127.0.0.1'
   */
  HOST: z.string().min(1).default('127.0.0.1'),
  /**
   * NATS server URL(s), comma-separated: on a cluster, every node, nearest
   * first (tried in order; reconnects go to the others). @default 'nats://127.0.0.1:4222'
   */
  NATS_URL: z.string().min(1).default('nats://127.0.0.1:4222'),
  /**
   * Replicas of the JetStream state this service creates (the weights bucket):
   * 1 on one server; 3 on a cluster of 3 or more nodes, so the state survives
   * losing a node. A bucket that exists keeps the replicas it was created with. @default 1
   */
  NATS_JS_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  /**
   * NATS user and password (infra/nats/auth.conf defines one user per service).
   * The user also names this connection's reply inboxes (see NATS_INBOX_PREFIX).
   */
  NATS_USER: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'expected letters, digits, "_" or "-" (the user names its reply inboxes, a subject token)')
    .optional(),
  NATS_PASS: z.string().min(1).optional(),
  /** NATS token auth (a server with one shared token instead of users). */
  NATS_TOKEN: z.string().min(1).optional(),
  /**
   * Prefix of this connection's reply and chunk inboxes. Permissions let each
   * user subscribe only to its own inboxes, so nobody else reads its replies or
   * answers its chunk pulls. @default '_INBOX.<NATS_USER>' with a user, else '_INBOX'
   */
  NATS_INBOX_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+)*$/, 'expected dot-separated subject tokens without wildcards')
    .optional(),
  /** Connect without NATS (HTTP only) when 'false'. @default true */
  NATS_ENABLED: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  /** Bearer token required on every HTTP route except probes, metrics and docs. Needed when HOST is not loopback. */
  AUTH_TOKEN: z.string().min(1).optional(),
  /**
   * 'true' lets a service bound beyond loopback run without `AUTH_TOKEN`
   * (anyone who reaches the port may call it); it says so in its log and
   * `/readyz` details. @default false
   */
  ALLOW_UNAUTHENTICATED: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
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
 * reported at once, so a misconfigured deployment is fixed in one round. A
 * service config (with HOST) bound beyond loopback without AUTH_TOKEN or
 * ALLOW_UNAUTHENTICATED is refused here, before the service starts anything.
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: Record<string, string | undefined>): Readonly<z.infer<S>> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new AppError(ErrorCode.InvalidConfig, `invalid configuration: ${problems.join('; ')}`, {
      details: { problems },
    });
  }
  if (isExposureSettings(parsed.data)) checkExposure(parsed.data);
  return Object.freeze(parsed.data);
}

function isExposureSettings(v: unknown): v is ExposureSettings {
  return typeof v === 'object' && v !== null && 'HOST' in v && 'ALLOW_UNAUTHENTICATED' in v;
}
