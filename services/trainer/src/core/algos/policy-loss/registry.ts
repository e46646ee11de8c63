import { z } from 'zod';
import { computePolicyLossBypassMode } from './bypass.ts';
import { computePolicyLossCispo } from './cispo.ts';
import { computePolicyLossClipCov } from './clip-cov.ts';
import { computePolicyLossGeoMean } from './geo-mean.ts';
import { computePolicyLossGpg } from './gpg.ts';
import { computePolicyLossGspo } from './gspo.ts';
import { computePolicyLossKlCov } from './kl-cov.ts';
import { computePolicyLossSapo } from './sapo.ts';
import type { PolicyLossFn } from './types.ts';
import { computePolicyLossVanilla } from './vanilla.ts';
import { invalid } from '../types.ts';

/** verl's POLICY_LOSS_REGISTRY (every `@register_policy_loss` at b178a3c), name -> loss. */
export const POLICY_LOSSES = {
  vanilla: (input) => {
    const r = computePolicyLossVanilla(input);
    return {
      pgLoss: r.pgLoss,
      dLogProb: r.dLogProb,
      metrics: { 'actor/pg_clipfrac': r.pgClipfrac, 'actor/ppo_kl': r.ppoKl, 'actor/pg_clipfrac_lower': r.pgClipfracLower },
    };
  },
  gspo: computePolicyLossGspo,
  sapo: computePolicyLossSapo,
  // verl returns an empty metrics dict for gpg.
  gpg: (input) => ({ ...computePolicyLossGpg(input), metrics: {} }),
  clip_cov: computePolicyLossClipCov,
  kl_cov: computePolicyLossKlCov,
  geo_mean: computePolicyLossGeoMean,
  cispo: computePolicyLossCispo,
  bypass_mode: computePolicyLossBypassMode,
} as const satisfies Record<string, PolicyLossFn>;

/** The registered loss modes, as a non-empty tuple for schemas. */
export const POLICY_LOSS_MODES = Object.keys(POLICY_LOSSES) as [keyof typeof POLICY_LOSSES, ...(keyof typeof POLICY_LOSSES)[]];
/** Schema of {@link POLICY_LOSS_MODES} (verl `policy_loss.loss_mode`). */
export const PolicyLossMode = z.enum(POLICY_LOSS_MODES);
/** A registered policy loss mode. */
export type PolicyLossMode = z.infer<typeof PolicyLossMode>;

/** verl `get_policy_loss_fn(name)`: throws invalid_params on an unknown name, as verl raises ValueError. */
export function getPolicyLossFn(name: string): PolicyLossFn {
  if (!Object.hasOwn(POLICY_LOSSES, name)) {
    throw invalid('policyLossMode', `unsupported loss mode: ${name}; supported modes are ${POLICY_LOSS_MODES.join(', ')}`);
  }
  return POLICY_LOSSES[name as PolicyLossMode];
}
