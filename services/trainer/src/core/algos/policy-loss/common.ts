// Pieces every policy-loss mode shares: input checks, torch's gradient rules, and the final
// agg_loss step that turns per-token losses and their local derivatives into dLoss/dlogProb.
import { aggLoss, type LossAggMode } from '../loss/agg-loss.ts';
import type { PolicyLossFnInput } from './types.ts';
import { assertMatrix, assertShape, at, type Floats } from '../types.ts';

/** Checks the shape and every per-token input of a policy loss. */
export function assertPolicyLossInput(input: PolicyLossFnInput): void {
  const { shape } = input;
  assertShape(shape);
  assertMatrix('oldLogProb', input.oldLogProb, shape);
  assertMatrix('logProb', input.logProb, shape);
  assertMatrix('advantages', input.advantages, shape);
  assertMatrix('responseMask', input.responseMask, shape);
  if (input.rolloutIsWeights !== undefined) assertMatrix('rolloutIsWeights', input.rolloutIsWeights, shape);
  if (input.detachedLogProb !== undefined) assertMatrix('detachedLogProb', input.detachedLogProb, shape);
}

/** log_prob.detach(): the stop-gradient copy of the log-probs (see PolicyLossFnInput.detachedLogProb). */
export const detached = (input: PolicyLossFnInput): Floats => input.detachedLogProb ?? input.logProb;

/** verl's clip_ratio_low / clip_ratio_high, each falling back to clip_ratio (0.2). */
export function clipRange(input: PolicyLossFnInput): { low: number; high: number } {
  const clipRatio = input.clipRatio ?? 0.2;
  return { low: input.clipRatioLow ?? clipRatio, high: input.clipRatioHigh ?? clipRatio };
}

/** torch.maximum(a, b) backward: the share of the gradient that goes to `a` (half on a tie). */
export const greaterWeight = (a: number, b: number): number => (a > b ? 1 : a === b ? 0.5 : 0);

/** torch.clamp backward: the gradient passes on the closed interval [lo, hi]. */
export const passes = (x: number, lo: number, hi: number): number => (x >= lo && x <= hi ? 1 : 0);

/** torch.clamp forward. */
export const clamp = (x: number, lo: number, hi: number): number => Math.min(Math.max(x, lo), hi);

/** The rollout-correction weight of token i (1 when there are none). */
export const isWeight = (input: PolicyLossFnInput, i: number): number => (input.rolloutIsWeights === undefined ? 1 : at(input.rolloutIsWeights, i));

/**
 * verl's `agg_loss(pg_losses, response_mask, mode, **global_batch_info)` plus the chain rule:
 * dLogProb_i = d agg / d loss_i * dLocal_i, where dLocal_i = d loss_i / d logProb_i.
 */
export function aggregatePolicyLoss(
  input: PolicyLossFnInput,
  losses: Float64Array,
  dLocal: Float64Array,
  mode: LossAggMode,
  mask: ArrayLike<number> = input.responseMask,
): { pgLoss: number; dLogProb: Float32Array } {
  const agg = aggLoss({ shape: input.shape, lossMat: losses, lossMask: mask as PolicyLossFnInput['responseMask'], mode, global: input.global });
  const dLogProb = new Float32Array(losses.length);
  for (let i = 0; i < dLogProb.length; i++) dLogProb[i] = at(agg.dLossMat, i) * at(dLocal, i);
  return { pgLoss: agg.loss, dLogProb };
}
