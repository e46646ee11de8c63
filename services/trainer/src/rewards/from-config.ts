import { SANDBOX_SUBJECT, type RewardClientOptions, type ScoreTransport } from '@rl/client';
import type { Rng } from '@rl/service-kit';
import type { RewardConfig } from '../config/reward-config.ts';
import { rewardModelName } from './reward-model-name.ts';

/** `createRewardClient` (@rl/client) options from the `reward.*` config keys. */
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
    subjectParams: subjectParams(reward),
    rewardModel: rewardModelName(reward.reward_model),
    rng,
  };
}

/**
 * The params verl's own reward keys give every item of a subject: rl_rewards'
 * `reward_kwargs.params` on every subject, and `sandbox_fusion.memory_limit_mb`
 * on the sandbox's, as verl passes them to every call.
 */
function subjectParams(reward: RewardConfig): Record<string, Record<string, unknown>> {
  const common = reward.custom_reward_function?.reward_kwargs?.params ?? {};
  const memory = reward.sandbox_fusion?.memory_limit_mb;
  const out: Record<string, Record<string, unknown>> = {};
  for (const subject of new Set(Object.values(reward.routes))) {
    const params = { ...common, ...(subject === SANDBOX_SUBJECT && memory !== undefined ? { memory_limit_mb: memory } : {}) };
    if (Object.keys(params).length > 0) out[subject] = params;
  }
  return out;
}
