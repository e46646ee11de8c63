import { availableParallelism } from 'node:os';
import { BaseConfig } from '@rl/service-kit';
import { z } from 'zod';

/** Environment of the rule-reward service. */
export const RewardRulesConfig = BaseConfig.extend({
  /** HTTP port. @default 8101 */
  PORT: z.coerce.number().int().min(0).max(65535).default(8101),
  /** Scoring worker threads. @default the number of CPU cores */
  SCORE_WORKERS: z.coerce.number().int().min(1).max(256).default(availableParallelism()),
  /** Per-item time budget when the item's `params.timeout_ms` is absent. @default 5000 */
  DEFAULT_ITEM_TIMEOUT_MS: z.coerce.number().int().min(1).max(600_000).default(5_000),
  /** Deadline of a batch forwarded to another reward service (code data sources). @default 300000 */
  FORWARD_TIMEOUT_MS: z.coerce.number().int().min(1).default(300_000),
});
/** Parsed configuration of the rule-reward service. */
export type RewardRulesConfig = z.infer<typeof RewardRulesConfig>;
