// Wiring only: config -> logger/telemetry -> NATS + worker pool -> core -> HTTP + NATS edges -> graceful stop.
import {
  BudgetPool,
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
import { createRemoteScorer } from './adapters/remote-scorer.ts';
import { RewardRulesConfig } from './config.ts';
import type { ScoreWorkerData } from './adapters/score-worker.ts';
import { addRoutes } from './http.ts';
import { natsEndpoints } from './nats.ts';
import { DOC_INFO } from './openapi.ts';
import { createScoreService } from './score-service.ts';

const config = loadConfig(RewardRulesConfig, process.env);
const logger = createLogger({ service: DOC_INFO.service, level: config.LOG_LEVEL });
const telemetry = await startTelemetry(DOC_INFO.service, process.env);
const metrics = createMetrics(DOC_INFO.service);

const nats: NatsHandle | undefined = config.NATS_ENABLED
  ? await connectNats({ servers: config.NATS_URL, name: DOC_INFO.service, user: config.NATS_USER, pass: config.NATS_PASS, token: config.NATS_TOKEN })
  : undefined;
const workerData: ScoreWorkerData = { defaultTimeoutMs: config.DEFAULT_ITEM_TIMEOUT_MS };
const pool = new BudgetPool({
  moduleUrl: new URL('./adapters/score-worker.ts', import.meta.url).href,
  moduleData: workerData,
  size: config.SCORE_WORKERS,
});
// Workers load the scorers (mathjs among them) before this process says it is ready.
await pool.whenReady();
const svc = createScoreService({ pool, runRemote: createRemoteScorer(nats?.nc, config.FORWARD_TIMEOUT_MS), metrics, logger });

const app = createApp({
  ...DOC_INFO,
  logger,
  metrics,
  maxBodyBytes: config.MAX_BODY_BYTES,
  authToken: config.AUTH_TOKEN,
  readiness: () => {
    const natsUp = nats === undefined ? true : nats.connected();
    const workersUp = pool.readyWorkers > 0;
    return { ready: natsUp && workersUp, checks: { nats: natsUp, workers: workersUp } };
  },
});
addRoutes(app, svc);

const natsService =
  nats === undefined
    ? undefined
    : await startNatsService({
        nc: nats.nc,
        ...DOC_INFO,
        name: DOC_INFO.service,
        endpoints: natsEndpoints(svc),
        logger,
        metrics,
        maxBodyBytes: config.MAX_BODY_BYTES,
        chunkTimeoutMs: config.NATS_REQUEST_TIMEOUT_MS,
      });
const http = await startHttpServer(app, config.HOST, config.PORT);
logger.info({ port: http.port, nats: config.NATS_ENABLED ? config.NATS_URL : 'disabled', workers: pool.size }, 'listening');

onShutdown(logger, [
  // Both edges stop taking work at once, then wait for what they already accepted.
  {
    name: 'edges',
    run: async () => {
      await Promise.all([natsService?.stop(config.SHUTDOWN_GRACE_MS), http.close(config.SHUTDOWN_GRACE_MS)]);
    },
  },
  { name: 'nats-drain', run: async () => nats?.nc.drain() },
  { name: 'workers', run: () => pool.close() },
  { name: 'telemetry', run: () => telemetry.shutdown() },
]);
