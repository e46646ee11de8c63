import { availableParallelism } from 'node:os';
import { BaseConfig } from '@rl/shared';
import { z } from 'zod';

/** Environment of the sandbox service. */
export const RewardSandboxConfig = BaseConfig.extend({
  /** HTTP port. @default 8102 */
  PORT: z.coerce.number().int().min(0).max(65535).default(8102),
  /** Programs running at once. @default the number of CPU cores */
  SANDBOX_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(availableParallelism()),
  /**
   * Programs allowed to wait for a slot before new ones are refused. Deep on
   * purpose: verl sends 64 concurrent calls per worker and jobs run many workers;
   * a waiting run costs only its request body. @default 20000
   */
  SANDBOX_MAX_QUEUED: z.coerce.number().int().min(0).default(20_000),
  /** What `memory_limit_MB: -1` means. @default 1024 */
  DEFAULT_MEMORY_LIMIT_MB: z.coerce.number().int().min(16).default(1024),
  /** Cap on each of stdout and stderr per run. @default 8 MiB */
  MAX_OUTPUT_BYTES: z.coerce.number().int().min(1024).default(8 * 1024 * 1024),
  /** Node.js binary for `nodejs`/`typescript` programs that need the real runtime. @default this process's node */
  SANDBOX_NODE_BIN: z.string().min(1).default(process.execPath),
  /** Use isolated-vm for JavaScript that needs no Node built-ins. @default true */
  SANDBOX_JS_ISOLATE: z.enum(['true', 'false']).default('true').transform((v) => v === 'true'),
  /**
   * Also put each run in its own memory/pids cgroup (a whole-sandbox memory cap on
   * top of the per-process rlimits). Off by default: on cgroup v1 hosts, moving a
   * process into a cgroup waits for an RCU grace period, which measured +14 ms p50
   * and ~1 s stalls every ~50 runs here. @default false
   */
  SANDBOX_CGROUPS: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
  /**
   * Run python through pre-started interpreters that fork a fresh set of
   * namespaces per run (the zygote; see adapters/zygote/zygote.py) instead of a
   * new bubblewrap sandbox per run. Not used when SANDBOX_CGROUPS is on (its runs
   * do not join cgroups). @default true
   */
  SANDBOX_PYTHON_ZYGOTE: z.enum(['true', 'false']).default('true').transform((v) => v === 'true'),
  /** Test cases of one item run at once. @default 4 */
  CASE_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
});
/** Parsed configuration of the sandbox service. */
export type RewardSandboxConfig = z.infer<typeof RewardSandboxConfig>;
