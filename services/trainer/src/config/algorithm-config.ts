import { z } from 'zod';
import { AdvEstimatorName, KlPenaltyKind } from '../core/algos/index.ts';
import { LossAggMode } from '../policy/losses/modes.ts';
import { bool, between, nonNegative, oneOf, positive, positiveInt, klEstimator, text } from './fields.ts';
import { OptimConfig } from './actor-rollout-ref-config.ts';
import { strategy } from './strategy.ts';

/** `algorithm.kl_ctrl.*`: the in-reward KL coefficient controller. */
export const KlCtrlSection = z.strictObject({
  /** "fixed" keeps kl_coef; "adaptive" steers towards target_kl. @default "fixed" */
  type: oneOf(['fixed', 'adaptive']).default('fixed'),
  /** Initial (or fixed) coefficient. @default 0.001 */
  kl_coef: nonNegative().default(0.001),
  /** Adaptive: KL to steer towards. @default 0.1 */
  target_kl: positive().default(0.1),
  /** Adaptive: horizon in samples. @default 10000 */
  horizon: positive().default(10000),
});

/** `algorithm.*` (verl AlgoConfig). */
export const AlgorithmConfig = z.strictObject({
  /** Advantage estimator. @default "gae" */
  adv_estimator: oneOf(AdvEstimatorName.options).default('gae'),
  /** Discount factor. @default 1.0 */
  gamma: between(0, 1).default(1.0),
  /** GAE lambda. @default 1.0 */
  lam: between(0, 1).default(1.0),
  /** GRPO: divide by the group std (false gives Dr.GRPO's advantage). @default true */
  norm_adv_by_std_in_grpo: bool().default(true),
  /** Subtract kl_coef * KL(actor || ref) from token rewards. @default false */
  use_kl_in_reward: bool().default(false),
  /** KL estimator for the in-reward penalty. @default "kl" */
  kl_penalty: klEstimator(KlPenaltyKind.options).default('kl'),
  kl_ctrl: KlCtrlSection.prefault({}),
});
/** Parsed `algorithm` section. */
export type AlgorithmConfig = z.infer<typeof AlgorithmConfig>;

/** `critic.*`: the value model (verl critic.yaml), used when `critic.enable` is on (by default: with adv_estimator "gae"). */
export const CriticConfig = z.strictObject({
  /** The critic's engine (see actor_rollout_ref.actor.strategy); null = the actor's. @default null */
  strategy: strategy().nullable().default(null),
  /** Use a critic: null = only with adv_estimator "gae" (verl need_critic). @default null */
  enable: bool().nullable().default(null),
  /** Critic optimizer (verl lr: 1e-5). */
  optim: OptimConfig(1e-5).prefault({}),
  model: z
    .strictObject({
      /** Weights the critic starts from (a value head is added unless they have one); null = the actor's initial weights. @default null */
      path: text().nullable().default(null),
    })
    .prefault({}),
  /** Value clip range around old values. @default 0.5 */
  cliprange_value: nonNegative().default(0.5),
  /** Gradient-norm clip. @default 1.0 */
  grad_clip: positive().default(1.0),
  /** Passes over each batch; null = actor.ppo_epochs. @default null */
  ppo_epochs: positiveInt().nullable().default(null),
  /** Prompts per critic optimizer step; null = actor.ppo_mini_batch_size. @default null */
  ppo_mini_batch_size: positiveInt().nullable().default(null),
  /** Sequences per forward/backward pass (gradient accumulation); null = the whole mini-batch. @default null */
  ppo_micro_batch_size_per_gpu: positiveInt().nullable().default(null),
  /** As actor_rollout_ref.actor.use_dynamic_bsz, for the critic; null = the actor's. @default null */
  use_dynamic_bsz: bool().nullable().default(null),
  /** As actor_rollout_ref.actor.ppo_max_token_len_per_gpu, for the critic; null = the actor's. @default null */
  ppo_max_token_len_per_gpu: positiveInt().nullable().default(null),
  /** Reshuffle the sequences every epoch; null = actor.shuffle. @default null */
  shuffle: bool().nullable().default(null),
  /** Seed of that shuffle. @default 42 */
  data_loader_seed: z.int({ error: 'expected an integer' }).default(42),
  /** How token losses become one scalar; null = actor.loss_agg_mode. @default null */
  loss_agg_mode: oneOf(LossAggMode.options).nullable().default(null),
});
/** Parsed `critic` section (before null fields are filled from the actor). */
export type CriticConfig = z.infer<typeof CriticConfig>;
