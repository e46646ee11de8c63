// Wiring only: config -> logger/telemetry -> NATS -> reward models and judges -> core -> HTTP + NATS edges -> graceful stop.
import { readFile } from 'node:fs/promises';
import { connectNatsFromConfig, createLogger, createMetrics, hostService, loadConfig, startTelemetry } from '@rl/service-kit';
import { RewardModelConfig } from './config.ts';
import type { RewardBackend } from './core/backend.ts';
import { buildRoutes } from './core/routing.ts';
import { addRoutes } from './http.ts';
import { createJudgeBackends, createJudgeMetrics } from './judges/index.ts';
import { loadRewardModel } from './models/load-reward-model.ts';
import { natsEndpoints } from './nats.ts';
import { DOC_INFO } from './openapi.ts';
import { createScoreService } from './score-service.ts';

const config = loadConfig(RewardModelConfig, process.env);
const logger = createLogger({ service: DOC_INFO.service, level: config.LOG_LEVEL });
const telemetry = await startTelemetry(DOC_INFO.service, process.env);
const metrics = createMetrics(DOC_INFO.service);

// Everything is loaded and checked before the edges come up: a bad directory or judges file stops the service naming it.
const backends: RewardBackend[] = [];
const judgesText = config.REWARD_JUDGES_FILE === undefined ? undefined : await readFile(config.REWARD_JUDGES_FILE, 'utf8');
if (judgesText !== undefined) backends.push(...createJudgeBackends(judgesText, process.env, { metrics: createJudgeMetrics(metrics.registry) }));
for (const spec of config.REWARD_MODELS) {
  const startedMs = performance.now();
  backends.push(
    await loadRewardModel(spec, {
      maxBatchTokens: config.REWARD_MODEL_MAX_BATCH_TOKENS,
      torchDevice: config.REWARD_MODEL_TORCH_DEVICE,
      vllmTimeoutMs: config.REWARD_MODEL_VLLM_TIMEOUT_MS,
      onnxThreads: config.REWARD_MODEL_ONNX_THREADS,
    }),
  );
  logger.info({ model: spec.name, dir: spec.dir, engine: spec.engine, loadMs: Math.round(performance.now() - startedMs) }, 'reward model loaded');
}
const routes = buildRoutes(backends, config.REWARD_ROUTES);
logger.info({ backends: backends.map((b) => ({ name: b.name, kind: b.kind })), routes: config.REWARD_ROUTES }, 'backends configured');

const nats = await connectNatsFromConfig(config, DOC_INFO.service);
const svc = createScoreService({ routes, metrics, logger });

await hostService({
  info: DOC_INFO,
  config,
  logger,
  metrics,
  telemetry,
  nats,
  checks: () => Object.fromEntries(backends.map((b) => [`${b.kind}:${b.name}`, b.ready()])),
  routes: (app) => addRoutes(app, svc),
  endpoints: natsEndpoints(svc),
  stopSteps: [{ name: 'backends', run: async () => void (await Promise.all(backends.map((b) => b.close()))) }],
});
