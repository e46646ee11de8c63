export { createPpoLoss, LOSS_INPUTS } from './create-ppo-loss.ts';
export { CLIP_COV_KEYS } from './clip-cov.ts';
export { JAX_POLICY_LOSSES } from './registry.ts';
export { klTerm } from './kl-term.ts';
export type { PgContext, PgLoss, PgResult, PpoLossConfig } from './types.ts';
export { createValueLoss, VALUE_LOSS_INPUTS, type ValueLossConfig } from './value-loss.ts';
