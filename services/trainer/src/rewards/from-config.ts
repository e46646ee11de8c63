import type { Rng } from '@rl/service-kit';
import type { RewardConfig } from '../config/reward-config.ts';
import type { RewardClientOptions } from './reward-client.ts';
import type { ScoreTransport } from './reward-types.ts';

/** {@link createRewardClient} options from the `reward.*` config keys. */
export function rewardClientOptions(reward: RewardConfig, transport: ScoreTransport, rng: Rng): RewardClientOptions {
  return {
    transport,
    routes: reward.routes,
    timeoutMs: reward.timeout_ms,
    retries: reward.retries,
    concurrency: reward.concurrency,
    maxBatchSize: reward.max_batch_size,
    backoffMs: reward.backoff_ms,
    maxBackoffMs: reward.max_backoff_ms,
    defaultParams: reward.params,
    rng,
  };
}
