import { z } from 'zod';
import { ROLLOUT_RS_OPTIONS } from '../core/algos/index.ts';
import { POLICY_LOSS_MODES } from '../policy/losses/modes.ts';
import { between, bool, finite, oneOf, positive, text } from './fields.ts';

/** `actor_rollout_ref.actor.policy_loss.*` (verl PolicyLossConfig, verl's defaults). */
export const PolicyLossSection = z.strictObject({
  /** Policy loss (verl register_policy_loss name); bypass_mode is what algorithm.rollout_correction.bypass_mode selects. @default "vanilla" */
  loss_mode: oneOf(POLICY_LOSS_MODES).default('vanilla'),
  /** clip_cov: share of valid tokens whose gradient is cut, at least one. @default 0.0002 */
  clip_cov_ratio: positive().default(0.0002),
  /** clip_cov: lower covariance bound (exclusive) of the tokens it may cut. @default 1.0 */
  clip_cov_lb: finite().default(1.0),
  /** clip_cov: upper covariance bound (exclusive). @default 5.0 */
  clip_cov_ub: finite().default(5.0),
  /** kl_cov: share of valid tokens that get the |log-ratio| penalty, at least one; at most 1 (torch.topk fails beyond). @default 0.0002 */
  kl_cov_ratio: between(0, 1)
    .refine((v) => v > 0, { error: 'expected a number in (0, 1]' })
    .default(0.0002),
  /** kl_cov: coefficient of that penalty. @default 0.1 */
  ppo_kl_coef: finite().default(0.1),
});
/** Parsed `actor_rollout_ref.actor.policy_loss` section. */
export type PolicyLossSection = z.infer<typeof PolicyLossSection>;

/** `actor_rollout_ref.actor.tau_pos` / `tau_neg`: SAPO's gate temperatures (verl ActorConfig), to spread into the actor section. */
export const SapoTemperatureFields = {
  /** SAPO temperature for positive advantages. @default 1.0 */
  tau_pos: positive().default(1.0),
  /** SAPO temperature for zero or negative advantages. @default 1.05 */
  tau_neg: positive().default(1.05),
};

const RS_OPTION = new RegExp(`^\\s*(${ROLLOUT_RS_OPTIONS.join('|')})\\s*(,\\s*(${ROLLOUT_RS_OPTIONS.join('|')})\\s*)*$`);

/** `algorithm.rollout_correction.*` (verl RolloutCorrectionConfig; defaults of verl's rollout_correction.yaml). */
export const RolloutCorrectionSection = z
  .strictObject({
    /** IS weights: "token", "sequence", or null for none (metrics only). @default null */
    rollout_is: oneOf(['token', 'sequence']).nullable().default(null),
    /** Upper truncation of the IS weights. @default 2.0 */
    rollout_is_threshold: positive().default(2.0),
    /** Normalise the IS weights to mean 1 per batch. @default false */
    rollout_is_batch_normalize: bool().default(false),
    /** Rejection criteria, comma separated (token_k1..3, seq_sum_k1..3, seq_mean_k1..3, seq_max_k2/3); null = none. @default null */
    rollout_rs: text()
      .regex(RS_OPTION, { error: `expected comma-separated options among ${ROLLOUT_RS_OPTIONS.join(', ')}` })
      .nullable()
      .default(null),
    /** Rejection thresholds: one per criterion or one shared; "lower_upper" ratio bounds for k1. Required with rollout_rs. @default null */
    rollout_rs_threshold: z.union([text(), positive()], { error: 'expected a threshold number or string' }).nullable().default(null),
    /** Reuse the rollout log-probs as old log-probs and train with loss_mode "bypass_mode". @default false */
    bypass_mode: bool().default(false),
    /** bypass_mode's loss: "ppo_clip" (ratio to the rollout policy) or "reinforce" (explicit IS weights). @default "ppo_clip" */
    loss_type: oneOf(['ppo_clip', 'reinforce']).default('ppo_clip'),
  })
  .refine((v) => v.rollout_rs === null || v.rollout_rs_threshold !== null, {
    error: 'rollout_rs_threshold is required when rollout_rs is set',
    path: ['rollout_rs_threshold'],
  });
/** Parsed `algorithm.rollout_correction` section. */
export type RolloutCorrectionSection = z.infer<typeof RolloutCorrectionSection>;
