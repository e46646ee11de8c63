import { bypassModeLoss } from './bypass-mode.ts';
import { cispoLoss } from './cispo.ts';
import type { PolicyLossMode } from './modes.ts';
import { clipCovLoss } from './clip-cov.ts';
import { geoMeanLoss } from './geo-mean.ts';
import { gpgLoss } from './gpg.ts';
import { gspoLoss } from './gspo.ts';
import { klCovLoss } from './kl-cov.ts';
import { sapoLoss } from './sapo.ts';
import type { PgLoss, PpoLossConfig } from './types.ts';
import { vanillaLoss } from './vanilla.ts';

/**
 * Every verl policy loss_mode (verl `@register_policy_loss`): loss_mode -> the mode compiled for a
 * job's settings. The one implementation each engine trains with (the torch engine through
 * lossOnLeaves). The names are modes.ts's (job configs and the protocol read them there).
 */
export const JAX_POLICY_LOSSES = {
  vanilla: vanillaLoss,
  gspo: gspoLoss,
  sapo: sapoLoss,
  gpg: gpgLoss,
  clip_cov: clipCovLoss,
  kl_cov: klCovLoss,
  geo_mean: geoMeanLoss,
  cispo: cispoLoss,
  bypass_mode: bypassModeLoss,
} as const satisfies Record<PolicyLossMode, (c: PpoLossConfig) => PgLoss>;
