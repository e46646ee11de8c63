// The names job configs and the worker protocol accept for the losses of policy/losses: verl's
// policy loss_mode and loss_agg_mode values. Kept apart from the implementations so that config
// code reads them without loading jax-js; registry.ts must implement every name listed here
// (a type check), so a mode is added here and there, and nowhere else.
import { z } from 'zod';

/** Every verl policy loss_mode (`@register_policy_loss`). */
export const POLICY_LOSS_MODES = ['vanilla', 'gspo', 'sapo', 'gpg', 'clip_cov', 'kl_cov', 'geo_mean', 'cispo', 'bypass_mode'] as const;
export type PolicyLossMode = (typeof POLICY_LOSS_MODES)[number];

/** verl loss_agg_mode values. */
export const LossAggMode = z.enum(['token-mean', 'seq-mean-token-sum', 'seq-mean-token-mean', 'seq-mean-token-sum-norm']);
export type LossAggMode = z.infer<typeof LossAggMode>;
