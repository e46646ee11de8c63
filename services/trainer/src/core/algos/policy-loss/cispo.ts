import { maskedMean } from '../masked.ts';
import { aggregatePolicyLoss, assertPolicyLossInput, clamp, clipRange, detached, isWeight } from './common.ts';
import type { PolicyLossFnInput, PolicyLossFnResult } from './types.ts';
import { at } from '../types.ts';

/**
 * verl `compute_policy_loss_cispo` (loss_mode "cispo", https://arxiv.org/abs/2506.13585). Per token,
 * with r = exp(clamp(logp - old, -20, 20)):
 *   loss = -sg(clamp(r, 1 - low, 1 + high)) * A * logp [* IS weight], aggregated with loss_agg_mode.
 * The clipped ratio is detached, so dloss/dlogp = -clip(r) * A.
 * Metrics: pg_clipfrac = masked mean of [r != clip(r)], ppo_kl, pg_clipfrac_lower = 0.
 */
export function computePolicyLossCispo(input: PolicyLossFnInput): PolicyLossFnResult {
  assertPolicyLossInput(input);
  const { oldLogProb, logProb, advantages, responseMask } = input;
  const { low, high } = clipRange(input);
  const n = logProb.length;
  const sgLogProb = detached(input);
  const losses = new Float64Array(n);
  const dLocal = new Float64Array(n);
  const negKl = new Float64Array(n);
  const clipped = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const logp = at(logProb, i);
    // The ratio only feeds the detached clip weight and the metrics.
    const logRatio = clamp(at(sgLogProb, i) - at(oldLogProb, i), -20, 20);
    const ratio = Math.exp(logRatio);
    const clippedRatio = clamp(ratio, 1 - low, 1 + high);
    const w = isWeight(input, i);
    losses[i] = -clippedRatio * at(advantages, i) * logp * w;
    dLocal[i] = -clippedRatio * at(advantages, i) * w;
    negKl[i] = -logRatio;
    clipped[i] = ratio !== clippedRatio ? 1 : 0;
  }
  const { pgLoss, dLogProb } = aggregatePolicyLoss(input, losses, dLocal, input.lossAggMode ?? 'token-mean');
  return {
    pgLoss,
    dLogProb,
    metrics: { 'actor/pg_clipfrac': maskedMean(clipped, responseMask), 'actor/ppo_kl': maskedMean(negKl, responseMask), 'actor/pg_clipfrac_lower': 0 },
  };
}
