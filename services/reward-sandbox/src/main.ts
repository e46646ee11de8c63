// Wiring only: config -> logger/telemetry -> runners + queue -> core -> HTTP + NATS edges -> graceful stop.
import {
  connectNats,
  createApp,
  createLogger,
  createMetrics,
  loadConfig,
  onShutdown,
  startHttpServer,
  startNatsService,
  startTelemetry,
  type NatsHandle,
} from '@rl/shared';
import { Gauge } from 'prom-client';
import { BwrapRunner } from './adapters/bwrap-runner.ts';
import { createFastRunner } from './adapters/fast-runner.ts';
import { RewardSandboxConfig } from './config.ts';
import { ExecQueue } from './core/exec-queue.ts';
import { createExecutor } from './core/executor.ts';
import type { RunDefaults } from './core/fusion.ts';
import { addRoutes } from './http.ts';
import { natsEndpoints } from './nats.ts';
import { DOC_INFO } from './openapi.ts';
import { createScoreService } from './score-service.ts';

const config = loadConfig(RewardSandboxConfig, process.env);
const logger = createLogger({ service: DOC_INFO.service, level: config.LOG_LEVEL });
const telemetry = await startTelemetry(DOC_INFO.service, process.env);
const metrics = createMetrics(DOC_INFO.service);

const native = new BwrapRunner({ nodePath: config.SANDBOX_NODE_BIN });
logger.info({ host: native.host, languages: native.languages() }, 'native sandbox ready');
const queue = new ExecQueue({ concurrency: config.SANDBOX_CONCURRENCY, maxQueued: config.SANDBOX_MAX_QUEUED });
for (const [name, help, read] of [
  ['sandbox_running', 'Programs executing now', () => queue.running],
  ['sandbox_queued', 'Programs waiting for a slot', () => queue.queued],
] as const) {
  new Gauge({ name, help, registers: [metrics.registry], collect() { this.set(read()); } });
}
const executor = createExecutor(native, queue, config.SANDBOX_JS_ISOLATE ? createFastRunner(config.DEFAULT_MEMORY_LIMIT_MB) : undefined);
const defaults: RunDefaults = { defaultMemoryMb: config.DEFAULT_MEMORY_LIMIT_MB, maxOutputBytes: config.MAX_OUTPUT_BYTES };
const scorer = createScoreService({ executor, defaults, caseConcurrency: config.CASE_CONCURRENCY });

const nats: NatsHandle | undefined = config.NATS_ENABLED
  ? await connectNats({ servers: config.NATS_URL, name: DOC_INFO.service, user: config.NATS_USER, pass: config.NATS_PASS, token: config.NATS_TOKEN })
  : undefined;

const app = createApp({
  ...DOC_INFO,
  logger,
  metrics,
  maxBodyBytes: config.MAX_BODY_BYTES,
  authToken: config.AUTH_TOKEN,
  readiness: () => {
    const natsUp = nats === undefined ? true : nats.connected();
    const runnable = native.languages().length > 0;
    return { ready: natsUp && runnable, checks: { nats: natsUp, sandbox: runnable } };
  },
});
addRoutes(app, executor, defaults, scorer);

const natsService =
  nats === undefined
    ? undefined
    : await startNatsService({
        nc: nats.nc,
        ...DOC_INFO,
        name: DOC_INFO.service,
        endpoints: natsEndpoints(executor, defaults, scorer),
        logger,
        metrics,
        maxBodyBytes: config.MAX_BODY_BYTES,
        chunkTimeoutMs: config.NATS_REQUEST_TIMEOUT_MS,
      });
const http = await startHttpServer(app, config.HOST, config.PORT);
logger.info({ port: http.port, nats: config.NATS_ENABLED ? config.NATS_URL : 'disabled', concurrency: config.SANDBOX_CONCURRENCY }, 'listening');

onShutdown(logger, [
  {
    name: 'edges',
    run: async () => {
      await Promise.all([natsService?.stop(config.SHUTDOWN_GRACE_MS), http.close(config.SHUTDOWN_GRACE_MS)]);
    },
  },
  { name: 'nats-drain', run: async () => nats?.nc.drain() },
  // Removes the pooled per-run cgroups.
  { name: 'sandbox', run: async () => native.close() },
  { name: 'telemetry', run: () => telemetry.shutdown() },
]);
