// The public surface of core/algos (see README.md), grouped by concern; the folders are internal.
// The losses are not here: their one implementation is policy/losses (jax-js), for every engine.
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

// KL: the penalty kinds, the adaptive controller, KL in the reward.
export * from './kl/penalty.ts';
export * from './kl/controller.ts';
export * from './kl/reward.ts';

// Rollout rejection-sampling options and thresholds (verl rollout_corr_helper), parsed for job configs.
export * from './rollout-correction/rs-thresholds.ts';

// Gradient clipping (torch clip_grad_norm_ as verl's optimizer step uses it).
export * from './loss/grad-clip.ts';
