// The back-ends this host gets, and the degraded modes it falls back to. The
// bubblewrap runner offers no language without its seccomp filter, its
// execute-only shell or a free uid range (fail closed); without a memory cgroup
// per slot a run is bounded by rlimits, tmpfs caps and IPC limits only; the
// python zygote needs the filter and python; the isolated-vm path needs
// prlimit(1), and without it JavaScript runs in bubblewrap. Each mode is logged
// once at start and shown on /health.

import type { Logger } from '@rl/service-kit';
import { IsolateRunner } from './adapters/js-isolate/index.ts';
import { BwrapRunner } from './adapters/native/bubblewrap/bubblewrap-runner.ts';
import { describeSeccompFilter } from './adapters/native/seccomp/filter.ts';
import { SlotPool } from './adapters/native/slots/slot-pool.ts';
import { ZygoteRunner } from './adapters/native/zygote/zygote-runner.ts';
import { cgroupRunnerOptions, type RewardSandboxConfig } from './config.ts';
import { limitInFlight, type SelectiveRunner } from './core/executor.ts';

/** The running back-ends, what /health says of them, and their shutdown. */
export interface BackEnds {
  native: BwrapRunner;
  /** The fast paths, in the order the executor tries them. */
  fast: SelectiveRunner[];
  /** For /health: whether the service can run code at all. */
  checks(): Record<string, boolean>;
  /** For /health: the degraded modes in effect. */
  details(): Record<string, unknown>;
  /** Kills the zygotes and the JavaScript worker processes, then removes the slots' cgroups. */
  close(): Promise<void>;
}

/** Starts the back-ends (the zygotes of the warm slots ready before it resolves) and logs what this host lacks. */
export async function startBackEnds(config: RewardSandboxConfig, bounds: { floor: number; max: number }, logger: Logger): Promise<BackEnds> {
  // One host uid and one memory/pids cgroup per run that may execute at once, shared by both native back-ends.
  // `floor` runs always, up to `max` (the slots) while the running ones leave CPU unused; the floor's slots stay warm.
  const slots = new SlotPool({ size: bounds.max, uidBase: config.SANDBOX_UID_BASE, warm: bounds.floor, idleMs: config.SANDBOX_SLOT_IDLE_SECONDS * 1000 });
  const native = new BwrapRunner({ nodePath: config.SANDBOX_NODE_BIN, slots, ...cgroupRunnerOptions(config.SANDBOX_CGROUPS) });
  logNative(native, slots, bounds, config, logger);
  const isolate = config.SANDBOX_JS_ISOLATE ? startIsolate(config, bounds, logger) : undefined;
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
  return {
    native,
    // The isolated-vm path holds a worker process (~95 MB) per concurrent run: at most the warm count + 1 at once
    // (what the pool keeps idle), the rest of a burst of waiting JavaScript goes to bubblewrap.
    fast: [isolate === undefined ? undefined : limitInFlight(isolate, bounds.floor + 1), zygote].filter((r) => r !== undefined),
    checks: () => ({ sandbox: native.languages().length > 0, seccomp: native.seccomp !== null }),
    // Degraded but serving: operators see it here as well as in the start-up log.
    details: () => ({
      memory_cgroups: native.cgroups === null ? 'none' : config.SANDBOX_CGROUPS === 'all' ? 'every run' : 'python zygote runs',
      uid_slots: { size: slots.size, first_uid: slots.uidBase, always_admitted: bounds.floor },
      problems: native.host.problems,
    }),
    close: async () => {
      await Promise.all([zygote?.close(), isolate?.close()]);
      native.close();
    },
  };
}

function logNative(native: BwrapRunner, slots: SlotPool, bounds: { floor: number }, config: RewardSandboxConfig, logger: Logger): void {
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
}

/** The isolated-vm runner, or undefined (and an error logged) when its workers cannot be memory-limited here. */
function startIsolate(config: RewardSandboxConfig, bounds: { floor: number }, logger: Logger): IsolateRunner | undefined {
  try {
    return new IsolateRunner({
      warmMemoryMb: [config.DEFAULT_MEMORY_LIMIT_MB],
      maxIdleWorkers: bounds.floor + 1,
      onWorkerEvent: (event) => (event.type === 'start-failed' ? logger.error(event, 'js worker failed to start') : logger.debug(event, 'js worker')),
      onCatastrophicError: (message) => logger.warn({ message }, 'isolate catastrophic failure; its worker is replaced'),
    });
  } catch (err) {
    logger.error({ err }, 'isolated-vm fast path unavailable; JavaScript runs in bubblewrap');
    return undefined;
  }
}
