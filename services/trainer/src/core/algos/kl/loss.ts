import { aggLoss, type GlobalBatchInfo, type LossAggMode } from '../loss/agg-loss.ts';
import { klPenalty, type KlPenaltyKind } from './penalty.ts';
import { assertMatrix, assertShape, at, type Floats, type Mask, type Shape } from '../types.ts';

/** Inputs of {@link computeKlLoss}. */
export interface KlLossInput {
  readonly shape: Shape;
  readonly logProb: Floats;
  /** Reference-policy log-probs (constant). */
  readonly refLogProb: Floats;
  readonly responseMask: Mask;
  /** verl actor `kl_loss_type`. @default "low_var_kl" */
  readonly klLossType?: KlPenaltyKind;
  /** @default "token-mean" */
  readonly lossAggMode?: LossAggMode;
  readonly global?: GlobalBatchInfo;
}

/**
 * The `use_kl_loss` term of verl's actor: kl_loss = agg_loss(kl_penalty(logp, ref, kl_loss_type)).
 * The actor adds kl_loss * kl_loss_coef to the policy loss; this returns the unscaled term and
 * dkl_loss/dlogp.
 */
export function computeKlLoss(input: KlLossInput): { klLoss: number; dLogProb: Float32Array } {
  const { shape, logProb, refLogProb, responseMask } = input;
  assertShape(shape);
  assertMatrix('logProb', logProb, shape);
  assertMatrix('refLogProb', refLogProb, shape);
  assertMatrix('responseMask', responseMask, shape);
  const kld = klPenalty(logProb, refLogProb, input.klLossType ?? 'low_var_kl');
  const agg = aggLoss({ shape, lossMat: kld.kl, lossMask: responseMask, mode: input.lossAggMode ?? 'token-mean', global: input.global });
  const dLogProb = new Float32Array(logProb.length);
  for (let i = 0; i < dLogProb.length; i++) dLogProb[i] = at(agg.dLossMat, i) * at(kld.dLogprob, i);
  return { klLoss: agg.loss, dLogProb };
}
