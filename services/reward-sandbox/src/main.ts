// Wiring only: config -> logger/telemetry -> runners + queue -> core -> HTTP + NATS edges -> graceful stop.
import { availableParallelism } from 'node:os';
import { AdmissionQueue, connectNatsFromConfig, createLogger, createMetrics, hostService, loadConfig, startTelemetry } from '@rl/service-kit';
import { Gauge } from 'prom-client';
import { BwrapRunner } from './adapters/native/bubblewrap/bubblewrap-runner.ts';
import { IsolateRunner } from './adapters/js-isolate/index.ts';
import { describeSeccompFilter } from './adapters/native/seccomp/filter.ts';
import { serviceCpuSampler } from './adapters/native/slots/cpu-sampler.ts';
import { SlotPool } from './adapters/native/slots/slot-pool.ts';
import { ZygoteRunner } from './adapters/native/zygote/zygote-runner.ts';
import { RewardSandboxConfig, cgroupRunnerOptions, slotBounds } from './config.ts';
import { CpuAdmission } from './core/cpu-admission.ts';
import { createExecutor, limitInFlight } from './core/executor.ts';
import type { RunDefaults } from './core/fusion.ts';
import { addRoutes } from './http.ts';
import { natsEndpoints } from './nats.ts';
import { DOC_INFO } from './openapi.ts';
import { createScoreService } from './score-service.ts';

const config = loadConfig(RewardSandboxConfig, process.env);
const logger = createLogger({ service: DOC_INFO.service, level: config.LOG_LEVEL });
const telemetry = await startTelemetry(DOC_INFO.service, process.env);
const metrics = createMetrics(DOC_INFO.service);
const nats = await connectNatsFromConfig(config, DOC_INFO.service);

// One host uid and one memory/pids cgroup per run that may execute at once, shared by both native back-ends.
// `floor` runs always, up to `max` (the slots) while the running ones leave CPU unused; the floor's slots stay warm.
const bounds = slotBounds(config);
// Read only when floor < max. On cgroup v1 the service moves into a cpuacct group of its own, so the reading is this
// service's CPU alone: before anything is started, so that every launcher, zygote and worker is born inside it.
const cpu = bounds.floor < bounds.max ? serviceCpuSampler() : null;
const slots = new SlotPool({ size: bounds.max, uidBase: config.SANDBOX_UID_BASE, warm: bounds.floor, idleMs: config.SANDBOX_SLOT_IDLE_SECONDS * 1000 });
const native = new BwrapRunner({
  nodePath: config.SANDBOX_NODE_BIN,
  slots,
  ...cgroupRunnerOptions(config.SANDBOX_CGROUPS),
});
logger.info({ host: native.host, languages: native.languages() }, 'native sandbox ready');
logger.info(
  {
    slots: slots.size,
    alwaysAdmitted: bounds.floor,
    uids: `${slots.uidBase}-${slots.uidBase + slots.size - 1}`,
    memoryCgroups: native.cgroups === null ? 'none' : config.SANDBOX_CGROUPS,
    privateMounts: native.host.privateMounts,
  },
  'execution slots',
);
if (native.cgroups === null) {
  logger.warn(
    { problems: native.host.problems },
    'no memory cgroup per slot: memfd, forked processes and kernel memory are not capped per run (fallback: RLIMIT_AS, tmpfs size and inode caps, SysV limits)',
  );
}
if (native.seccomp === null) {
  logger.error({ problems: native.host.problems }, 'no seccomp filter: native sandboxes and python are off');
} else {
  logger.info({ seccomp: describeSeccompFilter(native.seccomp) }, 'seccomp filter built');
  if (native.seccomp.unknown.length > 0) logger.warn({ unknown: native.seccomp.unknown }, 'libseccomp does not know these calls: not denied');
}
const admission = new CpuAdmission({
  cores: availableParallelism(),
  ...bounds,
  sampler: cpu ?? { cpuMs: () => null },
  now: () => performance.now(),
});
if (cpu !== null) logger.info({ ...bounds, cpu: cpu.source }, 'admission follows CPU use');
const queue = new AdmissionQueue({ admission, maxQueued: config.SANDBOX_MAX_QUEUED, name: 'sandbox' });
for (const [name, help, read] of [
  ['sandbox_running', 'Programs executing now', () => queue.running],
  ['sandbox_queued', 'Programs waiting for a slot', () => queue.queued],
  ['sandbox_admission_limit', 'Programs allowed to run at once now (follows their CPU use between the floor and the slot count)', () => admission.current],
  [
    'sandbox_cpu_demand_cores',
    'CPU the service and its sandboxes used or waited for over the last admission reading, in cores',
    () => admission.demandCores ?? 0,
  ],
] as const) {
  new Gauge({
    name,
    help,
    registers: [metrics.registry],
    collect() {
      this.set(read());
    },
  });
}
let isolate: IsolateRunner | undefined;
if (config.SANDBOX_JS_ISOLATE) {
  try {
    isolate = new IsolateRunner({
      warmMemoryMb: [config.DEFAULT_MEMORY_LIMIT_MB],
      maxIdleWorkers: bounds.floor + 1,
      onWorkerEvent: (event) => (event.type === 'start-failed' ? logger.error(event, 'js worker failed to start') : logger.debug(event, 'js worker')),
      onCatastrophicError: (message) => logger.warn({ message }, 'isolate catastrophic failure; its worker is replaced'),
    });
  } catch (err) {
    logger.error({ err }, 'isolated-vm fast path unavailable; JavaScript runs in bubblewrap');
  }
}
const zygote =
  config.SANDBOX_PYTHON_ZYGOTE && native.seccomp !== null && native.languages().includes('python')
    ? new ZygoteRunner({
        slots,
        cgroups: native.cgroups,
        host: native.host,
        seccomp: native.seccomp,
        onFailure: (message) => logger.warn({ message }, 'python zygote lost; replaced'),
      })
    : undefined;
if (zygote !== undefined) {
  await zygote.warm();
  logger.info({ zygotes: slots.warm, onDemand: slots.size - slots.warm }, 'python zygotes ready');
}
// The isolated-vm path holds a worker process (~95 MB) per concurrent run: at most the warm count + 1 at once
// (what the pool keeps idle), the rest of a burst of waiting JavaScript goes to bubblewrap.
const executor = createExecutor(
  native,
  queue,
  [isolate === undefined ? undefined : limitInFlight(isolate, bounds.floor + 1), zygote].filter((r) => r !== undefined),
);
const defaults: RunDefaults = { defaultMemoryMb: config.DEFAULT_MEMORY_LIMIT_MB, maxOutputBytes: config.MAX_OUTPUT_BYTES };
const scorer = createScoreService({ executor, defaults, caseConcurrency: config.CASE_CONCURRENCY });

await hostService({
  info: DOC_INFO,
  config,
  logger,
  metrics,
  telemetry,
  nats,
  checks: () => ({ sandbox: native.languages().length > 0, seccomp: native.seccomp !== null }),
  // Degraded but serving: operators see it here as well as in the start-up log.
  details: () => ({
    memory_cgroups: native.cgroups === null ? 'none' : config.SANDBOX_CGROUPS === 'all' ? 'every run' : 'python zygote runs',
    uid_slots: { size: slots.size, first_uid: slots.uidBase, always_admitted: bounds.floor },
    problems: native.host.problems,
  }),
  routes: (app) => addRoutes(app, executor, defaults, scorer),
  endpoints: natsEndpoints(executor, defaults, scorer),
  stopSteps: [
    // Kills the zygotes and the JavaScript worker processes, then removes the slots' cgroups.
    {
      name: 'sandbox',
      run: async () => {
        await Promise.all([zygote?.close(), isolate?.close()]);
        native.close();
        cpu?.close();
      },
    },
  ],
});
