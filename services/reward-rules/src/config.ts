import { availableParallelism } from 'node:os';
import { BaseConfig } from '@rl/service-kit';
import { z } from 'zod';
import type { BudgetPoolOptions } from './adapters/worker-pool/budget-pool.ts';
import { DEFAULT_MAIN_SEMI_SPACE_MB } from './main-thread-heap.ts';

/** Environment of the rule-reward service. */
export const RewardRulesConfig = BaseConfig.extend({
  /** HTTP port. @default 8101 */
  PORT: z.coerce.number().int().min(0).max(65535).default(8101),
  /** Scoring worker threads (each is a V8 heap with the scorers and mathjs loaded, ~60-90 MB resident). @default the number of CPU cores */
  SCORE_WORKERS: z.coerce.number().int().min(1).max(256).default(availableParallelism()),
  /**
   * V8 old-generation cap of each scoring worker, in MB. A worker holds ~30 MB of
   * live data; an item that needs more than the cap crashes its worker alone (its
   * slot is `scorer_failed`). @default 256
   */
  SCORE_WORKER_HEAP_MB: z.coerce.number().int().min(16).max(16_384).default(256),
  /**
   * V8 young generation of each scoring worker, in MB (`resourceLimits.maxYoungGenerationSizeMb`).
   * V8's default lets it grow to 128 MB and stay resident; 32 keeps a batch's state
   * young (no promotion churn) at the same throughput. @default 32
   */
  SCORE_WORKER_YOUNG_MB: z.coerce.number().int().min(1).max(1024).default(32),
  /**
   * The warm spare worker that replaces one killed over a time-out or crash:
   * `on-demand` starts one at the first replacement and retires it after
   * `SCORE_SPARE_IDLE_MS` without another; `eager` keeps one from start-up (one more
   * worker resident); `none` never keeps one (each replacement loads cold). @default on-demand
   */
  SCORE_SPARE_WORKER: z.enum(['eager', 'on-demand', 'none']).default('on-demand'),
  /** How long an on-demand spare worker stays warm after the last replacement. @default 60000 */
  SCORE_SPARE_IDLE_MS: z.coerce.number().int().min(0).default(60_000),
  /**
   * V8 semi-space of the main thread (the event loop: HTTP, NATS, bytes to and from
   * the workers), in MB; the young generation is two of them. Node's default lets
   * each grow to 64 MB. Applied at start-up: main.ts re-executes itself with
   * `--max-semi-space-size` (same pid, see main-thread-heap.ts); 0 leaves V8's
   * default. @default 4
   */
  MAIN_SEMI_SPACE_MB: z.coerce.number().int().min(0).max(1024).default(DEFAULT_MAIN_SEMI_SPACE_MB),
  /** Per-item time budget when the item's `params.timeout_ms` is absent. @default 5000 */
  DEFAULT_ITEM_TIMEOUT_MS: z.coerce.number().int().min(1).max(600_000).default(5_000),
  /** Deadline of a batch forwarded to another reward service (code data sources). @default 300000 */
  FORWARD_TIMEOUT_MS: z.coerce.number().int().min(1).default(300_000),
});
/** Parsed configuration of the rule-reward service. */
export type RewardRulesConfig = z.infer<typeof RewardRulesConfig>;

/** The scoring worker pool's sizing and memory options from the configuration. */
export function scorePoolOptions(
  config: RewardRulesConfig,
): Pick<BudgetPoolOptions, 'size' | 'workerHeapMb' | 'workerYoungGenerationMb' | 'spare' | 'spareIdleMs'> {
  return {
    size: config.SCORE_WORKERS,
    workerHeapMb: config.SCORE_WORKER_HEAP_MB,
    workerYoungGenerationMb: config.SCORE_WORKER_YOUNG_MB,
    spare: config.SCORE_SPARE_WORKER,
    spareIdleMs: config.SCORE_SPARE_IDLE_MS,
  };
}
