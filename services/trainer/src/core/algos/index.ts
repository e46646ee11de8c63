// The public surface of core/algos (see README.md), grouped by concern; the folders are internal.
export type { Shape } from './types.ts';
export { rowSums } from './types.ts';
export * from './masked.ts';

// Advantage estimators and their registry.
export * from './advantage/gae.ts';
export * from './advantage/grpo.ts';
export * from './advantage/grpo-passk.ts';
export * from './advantage/rloo.ts';
export * from './advantage/opo.ts';
export * from './advantage/gpg.ts';
export * from './advantage/reinforce-plus-plus.ts';
export * from './advantage/remax.ts';
export * from './advantage/registry.ts';

// KL: the penalty kinds, the adaptive controller, KL in the reward, the KL loss.
export * from './kl/penalty.ts';
export * from './kl/controller.ts';
export * from './kl/reward.ts';
export * from './kl/loss.ts';

// Policy losses (every verl loss_mode) and their registry.
export * from './policy-loss/types.ts';
export * from './policy-loss/vanilla.ts';
export * from './policy-loss/gpg.ts';
export * from './policy-loss/gspo.ts';
export * from './policy-loss/sapo.ts';
export * from './policy-loss/cispo.ts';
export * from './policy-loss/geo-mean.ts';
export * from './policy-loss/clip-cov.ts';
export * from './policy-loss/kl-cov.ts';
export * from './policy-loss/reinforce.ts';
export * from './policy-loss/bypass.ts';
export * from './policy-loss/registry.ts';
export * from './policy-loss/torch-topk.ts';

// Rollout correction (verl rollout_corr_helper): IS weights, rejection sampling, off-policy metrics.
export * from './rollout-correction/correction.ts';
export * from './rollout-correction/is-weights.ts';
export * from './rollout-correction/rejection.ts';
export * from './rollout-correction/rs-thresholds.ts';
export * from './rollout-correction/offpolicy-metrics.ts';

// Aggregation and the losses the actor and critic combine.
export * from './loss/agg-loss.ts';
export * from './loss/entropy.ts';
export * from './loss/value-loss.ts';
export * from './loss/actor-loss.ts';
export * from './loss/grad-clip.ts';
