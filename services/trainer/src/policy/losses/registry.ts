import type { PolicyLossMode } from '../../core/algos/index.ts';
import { bypassModeLoss } from './bypass-mode.ts';
import { cispoLoss } from './cispo.ts';
import { clipCovLoss } from './clip-cov.ts';
import { geoMeanLoss } from './geo-mean.ts';
import { gpgLoss } from './gpg.ts';
import { gspoLoss } from './gspo.ts';
import { klCovLoss } from './kl-cov.ts';
import { sapoLoss } from './sapo.ts';
import type { PgLoss, PpoLossConfig } from './types.ts';
import { vanillaLoss } from './vanilla.ts';

/** jax-js twin of core/algos POLICY_LOSSES: loss_mode -> a mode compiled for the job's settings. */
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
