import { z } from 'zod';
import { DEFAULT_REWARD_ROUTES } from '@rl/client';
import { bool, nonNegativeInt, oneOf, positiveInt, subject, text } from './fields.ts';
import { VerlRewardKeys } from './verl-reward-config.ts';

/** `reward.*`: where and how rewards are requested (ours), plus verl's own reward keys (verl-reward-config.ts). */
export const RewardConfig = z.strictObject({
  ...VerlRewardKeys,
  /**
   * data_source → NATS subject, merged over the built-in table; `name*` keys match
   * by prefix, `default` catches the rest, and null removes a built-in entry.
   */
  routes: z
    .record(z.string().min(1), subject().nullable(), { error: 'expected a mapping of data_source to NATS subject' })
    .default({})
    .transform((user) => {
      const merged: Record<string, string> = { ...DEFAULT_REWARD_ROUTES };
      for (const [key, value] of Object.entries(user)) {
        if (value === null) delete merged[key];
        else merged[key] = value;
      }
      return merged;
    }),
  /** Deadline of one scoring request (one chunk of items). @default 30000 */
  timeout_ms: positiveInt().default(30_000),
  /** Extra attempts after a failure whose AppError says `retryable` (busy, timeout, no_responders, unavailable, sandbox_unavailable). @default 3 */
  retries: nonNegativeInt().default(3),
  /** Scoring requests in flight at once, over all subjects. @default 4 */
  concurrency: positiveInt().default(4),
  /** Most items in one request; larger groups are split. @default 256 */
  max_batch_size: positiveInt().default(256),
  /**
   * Rewards while the rollouts run: each finished trajectory's item is sent as it arrives from the
   * generation service, so what remains after generation is the tail (rows that take story signals wait
   * for the log-prob pass). false: the whole batch after generation. Same scores either way. @default true
   */
  stream: bool().default(true),
  /**
   * Identical items (data_source, response, ground truth, extra_info, params, style, prompt) are scored
   * once per step, and across steps when their service says its scoring is deterministic (reward-rules).
   * The hit rate is reward/cache_hit_rate. @default true
   */
  cache: bool().default(true),
  /** First retry delay; doubles per attempt, with jitter. @default 200 */
  backoff_ms: positiveInt().default(200),
  /** Longest retry delay. @default 5000 */
  max_backoff_ms: positiveInt().default(5_000),
  /** Default `params` per data_source (verl's compute_score keyword options); item params override. @default {} */
  params: z
    .record(z.string().min(1), z.record(z.string(), z.unknown(), { error: 'expected a mapping of option names to values' }), {
      error: 'expected a mapping of data_source to params',
    })
    .default({}),
  /**
   * Dense rewards: the key of `extra` holding one reward per response token (e.g.
   * `token_rewards` of the digit-completion task), used as verl's token-level
   * scores instead of the sequence score on the last token. Only meaningful
   * for token-level estimators (gae, reinforce_plus_plus); outcome estimators
   * (grpo, rloo, ...) sum them back to one score per sequence. @default null
   */
  token_rewards_key: text().nullable().default(null),
  /**
   * Story signals: the policy's per-token log-probs of each reply with and
   * without the context r and its entropies, computed in the old log-prob
   * pass and sent as the item's `signals`. null = for the rows whose
   * data_source routes to reward.story.score; true = every row; false = none.
   * Rows that get them need data.prompt_without_context_key. @default null
   */
  signals: bool().nullable().default(null),
});
/** Parsed `reward` section (routes already merged with the built-in table). */
export type RewardConfig = z.infer<typeof RewardConfig>;

/** `rollout.*` (ours): where rollouts come from. */
export const RolloutServiceConfig = z.strictObject({
  /** "remote": the generation service over NATS; "embedded": the policy worker generates. @default "remote" */
  mode: oneOf(['remote', 'embedded']).default('remote'),
  /** Subject of the generation service. @default "rollout.generate" */
  subject: subject().default('rollout.generate'),
  /** Deadline of one generation request. @default 300000 */
  timeout_ms: positiveInt().default(300_000),
  /** JetStream object store bucket the policy worker publishes weights to (the generation service's POLICY_OBJECT_STORE). @default "rl-policy" */
  weights_bucket: text().default('rl-policy'),
  /** Object name of the weights in that bucket (the generation service's POLICY_OBJECT_NAME). @default "actor" */
  weights_name: text().default('actor'),
  /** What is published: "full" weights (merged with LoRA), or with LoRA the "adapter" alone, for a generation service with INFERENCE_SYNC=vllm-lora. @default "full" */
  weights_format: oneOf(['full', 'adapter']).default('full'),
});
/** Parsed `rollout` section. */
export type RolloutServiceConfig = z.infer<typeof RolloutServiceConfig>;
