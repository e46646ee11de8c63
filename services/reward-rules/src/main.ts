// Wiring only: config -> logger/telemetry -> NATS + worker pool -> core -> HTTP + NATS edges -> graceful stop.
import './main-thread-heap.ts'; // first: may re-execute the process with the main thread's heap flags
import { BudgetPool } from './adapters/worker-pool/budget-pool.ts';
import { connectNatsFromConfig, createLogger, createMetrics, hostService, loadConfig, startTelemetry } from '@rl/service-kit';
import { createRemoteScorer } from './adapters/remote-scorer.ts';
import type { ScoreWorkerData } from './adapters/score-worker.ts';
import { RewardRulesConfig, scorePoolOptions } from './config.ts';
import { addRoutes } from './http.ts';
import { natsEndpoints } from './nats.ts';
import { DOC_INFO } from './openapi.ts';
import { createScoreService } from './score-service.ts';

const config = loadConfig(RewardRulesConfig, process.env);
const logger = createLogger({ service: DOC_INFO.service, level: config.LOG_LEVEL });
const telemetry = await startTelemetry(DOC_INFO.service, process.env);
const metrics = createMetrics(DOC_INFO.service);
const nats = await connectNatsFromConfig(config, DOC_INFO.service);

const workerData: ScoreWorkerData = { defaultTimeoutMs: config.DEFAULT_ITEM_TIMEOUT_MS };
const pool = new BudgetPool({
  moduleUrl: new URL('./adapters/score-worker.ts', import.meta.url).href,
  moduleData: workerData,
  ...scorePoolOptions(config),
});
// Workers load the scorers (mathjs among them) before this process says it is ready.
await pool.whenReady();
const svc = createScoreService({ pool, runRemote: createRemoteScorer(nats?.nc, config.FORWARD_TIMEOUT_MS), metrics, logger });

await hostService({
  info: DOC_INFO,
  config,
  logger,
  metrics,
  telemetry,
  nats,
  checks: () => ({ workers: pool.readyWorkers > 0 }),
  routes: (app) => addRoutes(app, svc),
  endpoints: natsEndpoints(svc),
  stopSteps: [{ name: 'workers', run: () => pool.close() }],
});
