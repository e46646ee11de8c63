// Wiring only: config -> logger/telemetry -> back-ends + queue -> core -> HTTP + NATS edges -> graceful stop.
import { availableParallelism } from 'node:os';
import { AdmissionQueue, connectNatsFromConfig, createLogger, createMetrics, hostService, loadConfig, startTelemetry } from '@rl/service-kit';
import { serviceCpuSampler } from './adapters/native/slots/cpu-sampler.ts';
import { startBackEnds } from './back-ends.ts';
import { RewardSandboxConfig, slotBounds } from './config.ts';
import { CpuAdmission } from './core/cpu-admission.ts';
import { createExecutor } from './core/executor.ts';
import type { RunDefaults } from './core/fusion.ts';
import { addRoutes } from './http.ts';
import { addSandboxGauges } from './metrics.ts';
import { natsEndpoints } from './nats.ts';
import { DOC_INFO } from './openapi.ts';
import { createScoreService } from './score-service.ts';

const config = loadConfig(RewardSandboxConfig, process.env);
const logger = createLogger({ service: DOC_INFO.service, level: config.LOG_LEVEL });
const telemetry = await startTelemetry(DOC_INFO.service, process.env);
const metrics = createMetrics(DOC_INFO.service);
const nats = await connectNatsFromConfig(config, DOC_INFO.service);

const bounds = slotBounds(config);
// Read only when floor < max. On cgroup v1 the service moves into a cpuacct group of its own, so the reading is this
// service's CPU alone: before anything is started, so that every launcher, zygote and worker is born inside it.
const cpu = bounds.floor < bounds.max ? serviceCpuSampler() : null;
const backEnds = await startBackEnds(config, bounds, logger);
const admission = new CpuAdmission({
  cores: availableParallelism(),
  ...bounds,
  sampler: cpu ?? { cpuMs: () => null },
  now: () => performance.now(),
});
if (cpu !== null) logger.info({ ...bounds, cpu: cpu.source }, 'admission follows CPU use');
const queue = new AdmissionQueue({ admission, maxQueued: config.SANDBOX_MAX_QUEUED, name: 'sandbox' });
addSandboxGauges(metrics.registry, queue, admission);
const executor = createExecutor(backEnds.native, queue, backEnds.fast);
const defaults: RunDefaults = { defaultMemoryMb: config.DEFAULT_MEMORY_LIMIT_MB, maxOutputBytes: config.MAX_OUTPUT_BYTES };
const scorer = createScoreService({ executor, defaults, caseConcurrency: config.CASE_CONCURRENCY });

await hostService({
  info: DOC_INFO,
  config,
  logger,
  metrics,
  telemetry,
  nats,
  checks: backEnds.checks,
  details: backEnds.details,
  routes: (app) => addRoutes(app, executor, defaults, scorer),
  endpoints: natsEndpoints(executor, defaults, scorer),
  stopSteps: [
    {
      name: 'sandbox',
      run: async () => {
        await backEnds.close();
        cpu?.close();
      },
    },
  ],
});
