// Wiring only: config -> logger/telemetry -> NATS -> embedding model -> core -> HTTP + NATS edges -> graceful stop.
import { connectNatsFromConfig, createLogger, createMetrics, hostService, loadConfig, startTelemetry } from '@rl/service-kit';
import { RewardStoryConfig, rewardSettings } from './config.ts';
import { createFormatChecker } from './core/format/format-checker.ts';
import { loadOnnxEmbedder } from './embed/onnx-embedder.ts';
import { addRoutes } from './http.ts';
import { natsEndpoints } from './nats.ts';
import { DOC_INFO } from './openapi.ts';
import { createScoreService } from './score-service.ts';

const config = loadConfig(RewardStoryConfig, process.env);
const logger = createLogger({ service: DOC_INFO.service, level: config.LOG_LEVEL });
const telemetry = await startTelemetry(DOC_INFO.service, process.env);
const metrics = createMetrics(DOC_INFO.service);
const nats = await connectNatsFromConfig(config, DOC_INFO.service);

// The edges come up while the model loads: /healthz answers, /readyz says not ready,
// and requests that arrive meanwhile wait for the model instead of failing.
const startedMs = performance.now();
let modelLoaded = false;
const embedder = loadOnnxEmbedder({
  modelDir: config.STORY_MODEL_DIR,
  intraOpThreads: config.STORY_INTRA_OP_THREADS,
  maxBatch: config.STORY_MAX_BATCH,
  batchWindowMs: config.STORY_BATCH_WINDOW_MS,
  cacheEntries: config.STORY_CACHE_ENTRIES,
});
void embedder.then(
  (e) => {
    modelLoaded = true;
    logger.info(
      { model: e.modelId, dim: e.dim, maxSeqLength: e.maxSeqLength, output: e.outputKind, loadMs: Math.round(performance.now() - startedMs) },
      'model loaded',
    );
  },
  (err: unknown) => {
    logger.fatal({ err, modelDir: config.STORY_MODEL_DIR }, 'embedding model failed to load');
    process.exit(1);
  },
);

const settings = rewardSettings(config);
logger.info({ weights: settings.weights, tuning: settings.tuning }, 'reward settings');
const svc = createScoreService({ embedder, formats: createFormatChecker(config.STORY_FORMAT_CACHE_ENTRIES), settings, metrics, logger });

await hostService({
  info: DOC_INFO,
  config,
  logger,
  metrics,
  telemetry,
  nats,
  checks: () => ({ model: modelLoaded }),
  routes: (app) => addRoutes(app, svc),
  endpoints: natsEndpoints(svc),
  stopSteps: [{ name: 'model', run: async () => (await embedder).close() }],
});
