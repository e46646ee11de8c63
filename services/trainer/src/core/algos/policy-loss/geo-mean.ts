import { maskedMean } from '../masked.ts';
import { assertPolicyLossInput, clamp, clipRange, passes } from './common.ts';
import type { PolicyLossFnInput, PolicyLossFnResult } from './types.ts';
import { at } from '../types.ts';

/**
 * verl `compute_policy_loss_geo_mean` (loss_mode "geo_mean", GMPO https://arxiv.org/abs/2507.20673).
 * With d = logp - old (not clamped), s = sign(A) and d_c = clamp(d, -low, high):
 *   d_min = s * min(s d, s d_c)                                  (token-level clip, per sign)
 *   ratio_b = exp(sum_t d_min m / (n_b + 1e-8)),  A_b = sum_t A m / (n_b + 1e-8)
 *   loss = mean over all rows b of -A_b ratio_b [* exp(sum_t log(w + 1e-10) m / (n_b + 1e-8))]
 * loss_agg_mode and the global batch info are ignored, as in verl (torch.mean over the batch,
 * fully masked rows included). torch.min splits the gradient in half on ties, so inside the clip
 * range (where s d == s d_c) d d_min / d d = 1.
 * Metrics: pg_clipfrac = masked mean of [d != d_c and A > 0], pg_clipfrac_lower = same with A < 0, ppo_kl.
 */
export function computePolicyLossGeoMean(input: PolicyLossFnInput): PolicyLossFnResult {
  assertPolicyLossInput(input);
  const { shape, oldLogProb, logProb, advantages, responseMask, rolloutIsWeights } = input;
  const { low, high } = clipRange(input);
  const { batchSize, seqLen } = shape;
  const n = batchSize * seqLen;
  const dMin = new Float64Array(n);
  const dMinDd = new Float64Array(n);
  const negKl = new Float64Array(n);
  const clippedHigh = new Float64Array(n);
  const clippedLow = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const a = at(advantages, i);
    const d = at(logProb, i) - at(oldLogProb, i);
    const s = Math.sign(a);
    const dc = clamp(d, -low, high);
    const u = s * d;
    const v = s * dc;
    dMin[i] = s * Math.min(u, v);
    // torch.minimum: the smaller side takes the gradient, half each on a tie; chain rule through s*.
    const wu = u < v ? 1 : u === v ? 0.5 : 0;
    dMinDd[i] = s * s * (wu + (1 - wu) * passes(d, -low, high));
    negKl[i] = -d;
    const clipped = d !== dc;
    clippedHigh[i] = clipped && a > 0 ? 1 : 0;
    clippedLow[i] = clipped && a < 0 ? 1 : 0;
  }
  let pgLoss = 0;
  const dLogProb = new Float32Array(n);
  for (let b = 0; b < batchSize; b++) {
    let count = 0;
    let logRatioSum = 0;
    let advSum = 0;
    let logWeightSum = 0;
    for (let t = 0; t < seqLen; t++) {
      const i = b * seqLen + t;
      const m = at(responseMask, i);
      count += m;
      logRatioSum += at(dMin, i) * m;
      advSum += at(advantages, i) * m;
      if (rolloutIsWeights !== undefined) logWeightSum += Math.log(at(rolloutIsWeights, i) + 1e-10) * m;
    }
    const denom = count + 1e-8;
    const ratio = Math.exp(logRatioSum / denom);
    const adv = advSum / denom;
    const seqWeight = rolloutIsWeights === undefined ? 1 : Math.exp(logWeightSum / denom);
    pgLoss += (-adv * ratio * seqWeight) / batchSize;
    const rowGrad = (-adv * ratio * seqWeight) / batchSize / denom;
    for (let t = 0; t < seqLen; t++) {
      const i = b * seqLen + t;
      dLogProb[i] = rowGrad * at(responseMask, i) * at(dMinDd, i);
    }
  }
  return {
    pgLoss: batchSize === 0 ? Number.NaN : pgLoss,
    dLogProb,
    metrics: {
      'actor/pg_clipfrac': maskedMean(clippedHigh, responseMask),
      'actor/ppo_kl': maskedMean(negKl, responseMask),
      'actor/pg_clipfrac_lower': maskedMean(clippedLow, responseMask),
    },
  };
}
