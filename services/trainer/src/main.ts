// Wiring only: config -> roots and run-as user (drops root) -> logger/telemetry -> NATS -> job manager (runs jobs with run-job.ts) -> HTTP edge + NATS events -> graceful stop.
import { connectNatsFromConfig, createLogger, createMetrics, hostService, loadConfig, startTelemetry } from '@rl/service-kit';
import { jobDir, type JobEnvironment } from './adapters/job-environment.ts';
import { openJobPaths, setUpRoots } from './adapters/job-paths.ts';
import { checkWorkerReadable } from './adapters/policy-worker-process.ts';
import { runAsIdentity } from './adapters/run-as.ts';
import { runJob } from './adapters/run-job.ts';
import { TrainerServiceConfig, validateJobConfig, type TrainingJobConfig } from './config/index.ts';
import { assertJobPaths } from './config/path-roots.ts';
import { configuredRoots } from './config/service-config.ts';
import { addRoutes } from './http.ts';
import { eventsSubject } from './jobs/job-events.ts';
import { JobManager } from './jobs/job-manager.ts';
import { DOC_INFO } from './openapi.ts';
import { renderPlots } from './plots/index.ts';

const config = loadConfig(TrainerServiceConfig, process.env);
const runAs = runAsIdentity(config.TRAINER_RUN_AS);
const roots = setUpRoots(configuredRoots(config), runAs);
checkWorkerReadable(runAs);
const logger = createLogger({ service: DOC_INFO.service, level: config.LOG_LEVEL });
const telemetry = await startTelemetry(DOC_INFO.service, process.env);
const metrics = createMetrics(DOC_INFO.service);
const nats = await connectNatsFromConfig(config, DOC_INFO.service);
if (nats === undefined) throw new Error('the trainer needs NATS (NATS_ENABLED=true): rollouts, rewards and the policy worker are reached over it');

logger.info({ roots, runAs: runAs?.user ?? null }, 'job paths');
const env: JobEnvironment = { nc: nats.nc, natsUrl: config.NATS_URL, logger, baseDir: roots.base, runAs, logLevel: config.LOG_LEVEL };
const configs = new Map<string, TrainingJobConfig>();
const encoder = new TextEncoder();
const jobs = new JobManager<TrainingJobConfig>({
  run: async (submitted, ctx) => {
    // Checked again on the real paths (symbolic links resolved), which the job and its plots then use.
    const c = openJobPaths(submitted, roots, runAs);
    configs.set(ctx.id, c);
    return runJob(env, c, ctx);
  },
  onEvent: (e) => {
    if (e.type === 'state') logger.info({ job: e.job, state: e.state, error: e.error }, 'job state');
    else if (e.type === 'log') logger.info({ job: e.job }, e.message);
    nats.nc.publish(eventsSubject(e.job), encoder.encode(JSON.stringify(e)));
  },
});

await hostService({
  info: DOC_INFO,
  config,
  logger,
  metrics,
  telemetry,
  nats,
  routes: (app) =>
    addRoutes(app, {
      jobs,
      validate: (raw, overrides) => {
        const c = validateJobConfig(raw, overrides);
        assertJobPaths(c, roots);
        return c;
      },
      nameOf: (c) => c.trainer.experiment_name,
      renderPlots: async (id) => {
        const c = configs.get(id);
        if (c === undefined) return [];
        const dir = jobDir(env, c);
        return renderPlots(`${dir}/metrics.jsonl`, `${dir}/plots`);
      },
    }),
  endpoints: [],
  stopSteps: [{ name: 'jobs', run: () => jobs.close() }],
});
