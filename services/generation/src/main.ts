// Wiring only: config -> logger/telemetry -> NATS -> backend, tools, interactions -> core -> HTTP + NATS edges -> graceful stop.
import { randomUUID } from 'node:crypto';
import { BoundedQueue, connectNatsFromConfig, createLogger, createMetrics, hostService, loadConfig, startTelemetry } from '@rl/service-kit';
import { buildBackend } from './adapters/build-backend.ts';
import { loadEnvironment } from './adapters/load-env-config.ts';
import { createNatsEnvPort } from './adapters/nats-env-port.ts';
import { GenerationConfig } from './config.ts';
import type { RolloutDeps } from './core/rollout/run-rollouts.ts';
import { addRoutes } from './http.ts';
import { natsEndpoints } from './nats.ts';
import { DOC_INFO } from './openapi.ts';

const config = loadConfig(GenerationConfig, process.env);
const logger = createLogger({ service: DOC_INFO.service, level: config.LOG_LEVEL });
const telemetry = await startTelemetry(DOC_INFO.service, process.env);
const metrics = createMetrics(DOC_INFO.service);
const nats = await connectNatsFromConfig(config, DOC_INFO.service);

const { tools, interactions } = await loadEnvironment(config, createNatsEnvPort(nats?.nc));
const built = await buildBackend(config, nats?.nc, logger);
logger.info(
  { backend: built.backend.kind, model: built.backend.model, source: built.describe, tools: [...tools.keys()], interactions: [...interactions.keys()] },
  'backend ready',
);

const deps: RolloutDeps = {
  backend: built.backend,
  env: { tools, deadline: (ms) => AbortSignal.timeout(ms) },
  interactions,
  defaults: { maxPromptTokens: config.ROLLOUT_MAX_PROMPT_TOKENS, maxResponseTokens: config.ROLLOUT_MAX_RESPONSE_TOKENS },
  slots: new BoundedQueue({ concurrency: config.ROLLOUT_CONCURRENCY }),
  newId: () => randomUUID(),
  onUnexpectedError: (err) => logger.error({ err }, 'trajectory failed unexpectedly'),
  onSlotError: (code) => metrics.itemErrors.inc({ code }),
  ...(built.waitForVersion && { waitForVersion: built.waitForVersion }),
};

await hostService({
  info: DOC_INFO,
  config,
  logger,
  metrics,
  telemetry,
  nats,
  // Watching an object store, the service is ready before the first version arrives
  // (a trainer publishes it); rollouts until then get `unavailable` in their slots.
  checks: () => ({ model: built.backend.ready() || built.waitForVersion !== undefined }),
  routes: (app) => addRoutes(app, deps, Math.floor(Date.now() / 1000)),
  endpoints: natsEndpoints(deps),
  stopSteps: [{ name: 'backend', run: () => built.stop() }],
});
