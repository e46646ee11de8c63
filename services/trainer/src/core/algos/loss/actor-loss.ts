import type { Rng } from '@rl/service-kit/core';
import type { GlobalBatchInfo, LossAggMode } from './agg-loss.ts';
import { computeEntropyLoss } from './entropy.ts';
import { computeKlLoss } from '../kl/loss.ts';
import type { KlPenaltyKind } from '../kl/penalty.ts';
import { getPolicyLossFn, type PolicyLossMode } from '../policy-loss/registry.ts';
import type { PolicyLossParams } from '../policy-loss/types.ts';
import { at, invalid, type Floats, type Mask, type Shape } from '../types.ts';

/** The actor settings verl reads in `update_policy` (camelCase of actor_rollout_ref.actor.*). */
export interface ActorLossConfig extends PolicyLossParams {
  /** verl `policy_loss.loss_mode` (any registered mode, see policy-loss/registry.ts). @default "vanilla" */
  readonly policyLossMode?: PolicyLossMode;
  /** @default "token-mean" */
  readonly lossAggMode?: LossAggMode;
  /** Weight of the entropy bonus (subtracted from the loss). @default 0 */
  readonly entropyCoeff?: number;
  /** Add kl_loss_coef * agg(kl_penalty(logp, ref)) to the loss. @default false */
  readonly useKlLoss?: boolean;
  /** @default 0.001 */
  readonly klLossCoef?: number;
  /** @default "low_var_kl" */
  readonly klLossType?: KlPenaltyKind;
}

/** Inputs of {@link computeActorLoss}: one micro-batch. */
export interface ActorLossInput extends ActorLossConfig {
  readonly shape: Shape;
  readonly oldLogProb: Floats;
  readonly logProb: Floats;
  readonly advantages: Floats;
  readonly responseMask: Mask;
  /** [batch, seqLen] per-token entropy of the current policy; needed when entropyCoeff != 0. */
  readonly entropy?: Floats;
  /** Needed when useKlLoss. */
  readonly refLogProb?: Floats;
  readonly rolloutIsWeights?: Floats;
  readonly global?: GlobalBatchInfo;
  /** Seeded randomness for clip_cov's choice of tokens. */
  readonly rng?: Rng;
  /** Multiplier of the back-propagated loss: verl dp_actor's 1 / gradient_accumulation. @default 1 */
  readonly microBatchScale?: number;
}

/**
 * verl actor metric names for one micro-batch (unscaled by microBatchScale). Besides the named
 * ones, bypass_mode adds its rollout_corr/* metrics.
 */
export interface ActorLossMetrics {
  [name: string]: number | undefined;
  'actor/pg_loss': number;
  'actor/pg_clipfrac'?: number;
  'actor/ppo_kl'?: number;
  'actor/pg_clipfrac_lower'?: number;
  'actor/entropy'?: number;
  'actor/kl_loss'?: number;
  'actor/kl_coef'?: number;
}

/** The scalar to back-propagate and its gradients. */
export interface ActorLossResult {
  /** (pg_loss - entropy_coeff * entropy_agg + kl_loss_coef * kl_loss) * microBatchScale */
  readonly loss: number;
  readonly dLogProb: Float32Array;
  /** dLoss/dEntropy per token, when entropy was given. */
  readonly dEntropy?: Float32Array;
  readonly metrics: ActorLossMetrics;
}

/**
 * The loss of verl's actor update for one micro-batch (dp_actor `update_policy` / losses `ppo_loss`):
 * policy loss, minus the entropy bonus, plus the KL loss, times the micro-batch scale. All three
 * terms use the same aggregation mode and global batch info (the newer losses.py behaviour).
 */
export function computeActorLoss(input: ActorLossInput): ActorLossResult {
  const { shape, responseMask, global } = input;
  const mode = input.lossAggMode ?? 'token-mean';
  const scale = input.microBatchScale ?? 1;
  const entropyCoeff = input.entropyCoeff ?? 0;
  const pg = getPolicyLossFn(input.policyLossMode ?? 'vanilla')({ ...input, lossAggMode: mode });
  const metrics: ActorLossMetrics = { ...pg.metrics, 'actor/pg_loss': pg.pgLoss };
  let loss = pg.pgLoss;
  const dLogProb = pg.dLogProb;
  let dEntropy: Float32Array | undefined;
  if (input.entropy !== undefined) {
    const ent = computeEntropyLoss({ shape, entropy: input.entropy, responseMask, lossAggMode: mode, global });
    metrics['actor/entropy'] = ent.entropyLoss;
    loss -= entropyCoeff * ent.entropyLoss;
    dEntropy = ent.dEntropy.map((g) => -entropyCoeff * g * scale);
  } else if (entropyCoeff !== 0) {
    throw invalid('entropy', 'per-token entropy is required when entropyCoeff is not 0');
  }
  if (input.useKlLoss === true) {
    if (input.refLogProb === undefined) throw invalid('refLogProb', 'reference log-probs are required when useKlLoss');
    const coef = input.klLossCoef ?? 0.001;
    const kl = computeKlLoss({
      shape,
      logProb: input.logProb,
      refLogProb: input.refLogProb,
      responseMask,
      klLossType: input.klLossType,
      lossAggMode: mode,
      global,
    });
    metrics['actor/kl_loss'] = kl.klLoss;
    metrics['actor/kl_coef'] = coef;
    loss += kl.klLoss * coef;
    for (let i = 0; i < dLogProb.length; i++) dLogProb[i] = at(dLogProb, i) + coef * at(kl.dLogProb, i);
  }
  if (scale !== 1) for (let i = 0; i < dLogProb.length; i++) dLogProb[i] = at(dLogProb, i) * scale;
  return { loss: loss * scale, dLogProb, ...(dEntropy === undefined ? {} : { dEntropy }), metrics };
}
