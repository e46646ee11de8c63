import type { OpenAPIHono } from '@hono/zod-openapi';
import type { BaseConfig } from './config.ts';
import { createApp, type AppEnv } from './http/app.ts';
import { checkExposure } from './http/exposure.ts';
import type { DocInfo } from './http/openapi-doc.ts';
import { startHttpServer } from './http/serve.ts';
import type { Logger } from './logger.ts';
import type { ServiceMetrics } from './metrics.ts';
import { connectNats, type NatsHandle } from './nats/connect.ts';
import { startNatsService, type EndpointSpec } from './nats/service.ts';
import { onShutdown, type StopStep } from './shutdown.ts';
import type { Telemetry } from './telemetry/start.ts';

/** Connects to NATS as configured, or returns undefined when `NATS_ENABLED=false`. */
export function connectNatsFromConfig(config: BaseConfig, name: string): Promise<NatsHandle | undefined> {
  if (!config.NATS_ENABLED) return Promise.resolve(undefined);
  return connectNats({
    servers: config.NATS_URL,
    name,
    user: config.NATS_USER,
    pass: config.NATS_PASS,
    token: config.NATS_TOKEN,
    inboxPrefix: config.NATS_INBOX_PREFIX ?? (config.NATS_USER !== undefined ? `_INBOX.${config.NATS_USER}` : undefined),
  });
}

/** What {@link hostService} needs besides the service's own domain objects. */
export interface HostOptions {
  info: DocInfo;
  config: BaseConfig & { PORT: number };
  logger: Logger;
  metrics: ServiceMetrics;
  telemetry: Telemetry;
  nats: NatsHandle | undefined;
  /** Extra readiness checks (NATS is always checked when enabled). */
  checks?: () => Record<string, boolean>;
  /** Non-gating facts for `/readyz` (degraded modes an operator should see). */
  details?: () => Record<string, unknown>;
  routes: (app: OpenAPIHono<AppEnv>) => void;
  endpoints: ReadonlyArray<EndpointSpec>;
  /** Run after both edges stopped and NATS drained (close pools, cgroups); telemetry flushes last. */
  stopSteps?: StopStep[];
}

/**
 * The edges every service shares: the HTTP app (with its routes), the NATS
 * micro-service (with its endpoints), readiness, the `listening` log line, and
 * graceful stop on SIGTERM (both edges stop taking work together, wait for what
 * they accepted, then NATS drains and the service's own steps run).
 */
export async function hostService(o: HostOptions): Promise<void> {
  const { info, config, logger, metrics, nats } = o;
  // loadConfig refused an unauthenticated bind beyond loopback already; this also covers configs built without it.
  const exposure = checkExposure(config);
  const app = createApp({
    ...info,
    logger,
    metrics,
    maxBodyBytes: config.MAX_BODY_BYTES,
    authToken: config.AUTH_TOKEN,
    readiness: () => {
      const checks = { nats: nats === undefined ? true : nats.connected(), ...o.checks?.() };
      const details =
        o.details === undefined && exposure.warning === undefined
          ? undefined
          : { ...o.details?.(), ...(exposure.warning !== undefined && { auth: exposure.warning }) };
      return { ready: Object.values(checks).every(Boolean), checks, ...(details !== undefined && { details }) };
    },
  });
  o.routes(app);
  const natsService =
    nats === undefined
      ? undefined
      : await startNatsService({
          nc: nats.nc,
          ...info,
          name: info.service,
          endpoints: o.endpoints,
          logger,
          metrics,
          maxBodyBytes: config.MAX_BODY_BYTES,
          chunkTimeoutMs: config.NATS_REQUEST_TIMEOUT_MS,
        });
  const http = await startHttpServer(app, config.HOST, config.PORT);
  if (exposure.warning !== undefined) logger.warn({ host: config.HOST, port: http.port }, exposure.warning);
  logger.info({ host: config.HOST, port: http.port, nats: nats === undefined ? 'disabled' : config.NATS_URL }, 'listening');
  onShutdown(logger, [
    {
      name: 'edges',
      run: async () => {
        await Promise.all([natsService?.stop(config.SHUTDOWN_GRACE_MS), http.close(config.SHUTDOWN_GRACE_MS)]);
      },
    },
    { name: 'nats-drain', run: async () => nats?.nc.drain() },
    ...(o.stopSteps ?? []),
    { name: 'telemetry', run: () => o.telemetry.shutdown() },
  ]);
}
