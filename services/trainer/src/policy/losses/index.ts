export { createPpoLoss } from './create-ppo-loss.ts';
export { CLIP_COV_KEYS } from './clip-cov.ts';
export { createValueLoss } from './value-loss.ts';
