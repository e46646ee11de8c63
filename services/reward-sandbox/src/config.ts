import { availableParallelism } from 'node:os';
import { BaseConfig } from '@rl/service-kit';
import { z } from 'zod';
import { DEFAULT_UID_BASE } from './adapters/native/slots/slot-pool.ts';

/** Most execution slots an instance may have (the uid range it reserves). */
const MAX_SLOTS = 256;

/** Environment of the sandbox service. */
export const RewardSandboxConfig = BaseConfig.extend({
  /** HTTP port. @default 8102 */
  PORT: z.coerce.number().int().min(0).max(65535).default(8102),
  /**
   * Programs always allowed to run at once, whatever their CPU use (the floor
   * of the adaptive count; see SANDBOX_MAX_SLOTS). Set alone, it is a fixed
   * count as before (the slots then default to it). @default the number of CPU cores
   */
  SANDBOX_CONCURRENCY: z.coerce.number().int().min(1).max(MAX_SLOTS).optional(),
  /**
   * Execution slots (host uids, cgroups): the most programs running at once.
   * Between SANDBOX_CONCURRENCY and this, a program is let in only while the
   * running ones leave CPU unused (core/cpu-admission.ts): programs that sleep
   * or wait fill the slots, CPU-bound ones stay at about one per core.
   * @default 16 × cores (at most 256), or SANDBOX_CONCURRENCY when only that is set
   */
  SANDBOX_MAX_SLOTS: z.coerce.number().int().min(1).max(MAX_SLOTS).optional(),
  /** Seconds a slot past the warm ones (SANDBOX_CONCURRENCY) stays idle before its python zygote and spare launchers are stopped. @default 60 */
  SANDBOX_SLOT_IDLE_SECONDS: z.coerce.number().min(0).default(60),
  /**
   * Programs allowed to wait for a slot before new ones are refused. Deep on
   * purpose: verl sends 64 concurrent calls per worker and jobs run many workers;
   * a waiting run costs only its request body. @default 20000
   */
  SANDBOX_MAX_QUEUED: z.coerce.number().int().min(0).default(20_000),
  /** What `memory_limit_MB: -1` means. @default 1024 */
  DEFAULT_MEMORY_LIMIT_MB: z.coerce.number().int().min(16).default(1024),
  /** Cap on each of stdout and stderr per run. @default 8 MiB */
  MAX_OUTPUT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(8 * 1024 * 1024),
  /** Node.js binary for `nodejs`/`typescript` programs that need the real runtime. @default this process's node */
  SANDBOX_NODE_BIN: z.string().min(1).default(process.execPath),
  /** Use isolated-vm for JavaScript that needs no Node built-ins. @default true */
  SANDBOX_JS_ISOLATE: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  /**
   * Cap each run's memory as a whole (anonymous memory of all its processes,
   * tmpfs, memfd, SysV segments, kernel memory) with its slot's memory/pids
   * cgroup, made once per slot at start-up; the limits are written per run.
   * `all` (or `true`): every run; a zygote joins its slot's cgroup once, and a
   * bubblewrap run is exec'd by its slot's spare launcher, which joined the
   * cgroup while the slot was idle (adapters/native/bubblewrap/launcher.ts), so the cgroup v1
   * move (an RCU grace period: +8-26 ms p50, ~1 s stalls in ~4% of runs when
   * done per run) is off the critical path. `zygote`: python zygote runs only;
   * `false`: none. Used when the host lets the service create cgroups (root on
   * v1, delegation on v2); otherwise the service logs it and runs without.
   * @default all
   */
  SANDBOX_CGROUPS: z
    .enum(['all', 'true', 'zygote', 'false'])
    .default('all')
    .transform((v) => (v === 'true' ? 'all' : v)),
  /**
   * Host uid (and gid) of the first execution slot; slot i runs its sandboxes as
   * SANDBOX_UID_BASE + i, so concurrent runs never share per-user kernel budgets
   * (inotify, pipe buffers, keyrings, RLIMIT_NPROC). The range must hold no
   * account, group or /etc/subuid or /etc/subgid range (checked at start-up);
   * give each service instance on a host its own range. @default 2000000000
   */
  SANDBOX_UID_BASE: z.coerce
    .number()
    .int()
    .min(1000)
    .max(4_294_967_294 - MAX_SLOTS)
    .default(DEFAULT_UID_BASE),
  /**
   * Run python through pre-started interpreters that fork a fresh set of
   * namespaces per run (the zygote; see adapters/native/zygote/zygote.py) instead of a
   * new bubblewrap sandbox per run. @default true
   */
  SANDBOX_PYTHON_ZYGOTE: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  /** Test cases of one item run at once. @default 4 */
  CASE_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
});
/** `SANDBOX_CGROUPS` after parsing. */
export type CgroupMode = 'all' | 'zygote' | 'false';

/** The BwrapRunner options a cgroup mode means (main.ts and the default-config tests). */
export function cgroupRunnerOptions(mode: CgroupMode): { cgroups: boolean; joinCgroups: boolean } {
  return { cgroups: mode !== 'false', joinCgroups: mode === 'all' };
}

/** Parsed configuration of the sandbox service. */
export type RewardSandboxConfig = z.infer<typeof RewardSandboxConfig>;

/** The admission bounds: `floor` runs always, up to `max` (the slots) while CPU allows. */
export function slotBounds(
  config: Pick<RewardSandboxConfig, 'SANDBOX_CONCURRENCY' | 'SANDBOX_MAX_SLOTS'>,
  cores = availableParallelism(),
): {
  floor: number;
  max: number;
} {
  const { SANDBOX_CONCURRENCY: floorSet, SANDBOX_MAX_SLOTS: maxSet } = config;
  const floor = floorSet ?? Math.min(cores, maxSet ?? MAX_SLOTS);
  const max = maxSet ?? (floorSet !== undefined ? floorSet : Math.min(MAX_SLOTS, Math.max(floor, 16 * cores)));
  if (max < floor) throw new RangeError(`SANDBOX_MAX_SLOTS (${max}) must be >= SANDBOX_CONCURRENCY (${floor})`);
  return { floor, max };
}
