import { maskedMean } from '../masked.ts';
import { aggregatePolicyLoss, assertPolicyLossInput, clamp, clipRange, detached, greaterWeight, isWeight, passes } from './common.ts';
import type { PolicyLossFnInput, PolicyLossFnResult } from './types.ts';
import { at } from '../types.ts';

/**
 * verl `compute_policy_loss_gspo` (loss_mode "gspo", https://arxiv.org/abs/2507.18071). Per row b,
 * with n_b = max(sum_t m, 1) and d = logp - old (not clamped):
 *   log s_bt = sg(sum_t d*m / n_b) + logp_bt - sg(logp_bt), clamped to <= 10; s = exp(log s)
 *   loss = max(-A s, -A clamp(s, 1 - low, 1 + high)) [* IS weight]
 * always aggregated with "seq-mean-token-mean" (verl ignores loss_agg_mode here). The value of s
 * is the row's geometric-mean ratio; its gradient flows only through the token's own log-prob.
 * Metrics: pg_clipfrac, ppo_kl = masked mean of -d, pg_clipfrac_lower = 0.
 */
export function computePolicyLossGspo(input: PolicyLossFnInput): PolicyLossFnResult {
  assertPolicyLossInput(input);
  const { shape, oldLogProb, logProb, advantages, responseMask } = input;
  const { low, high } = clipRange(input);
  const { batchSize, seqLen } = shape;
  const n = batchSize * seqLen;
  const sgLogProb = detached(input);
  const losses = new Float64Array(n);
  const dLocal = new Float64Array(n);
  const negKl = new Float64Array(n);
  const clipped = new Float64Array(n);
  for (let b = 0; b < batchSize; b++) {
    let sum = 0;
    let count = 0;
    for (let t = 0; t < seqLen; t++) {
      const i = b * seqLen + t;
      sum += (at(sgLogProb, i) - at(oldLogProb, i)) * at(responseMask, i);
      count += at(responseMask, i);
    }
    const seqLogRatio = sum / Math.max(count, 1);
    for (let t = 0; t < seqLen; t++) {
      const i = b * seqLen + t;
      // log s = logp - sg(logp) + sg(seq log-ratio): the value is the row's, the gradient the token's.
      const logSRaw = at(logProb, i) - at(sgLogProb, i) + seqLogRatio;
      const pass = logSRaw <= 10 ? 1 : 0;
      const s = Math.exp(Math.min(logSRaw, 10));
      const a = at(advantages, i);
      const unclipped = -a * s;
      const clippedLoss = -a * clamp(s, 1 - low, 1 + high);
      const w1 = greaterWeight(unclipped, clippedLoss);
      const dLoss = w1 * -a + (1 - w1) * -a * passes(s, 1 - low, 1 + high);
      const w = isWeight(input, i);
      losses[i] = Math.max(unclipped, clippedLoss) * w;
      dLocal[i] = w * dLoss * s * pass;
      negKl[i] = -(at(logProb, i) - at(oldLogProb, i));
      clipped[i] = clippedLoss > unclipped ? 1 : 0;
    }
  }
  const { pgLoss, dLogProb } = aggregatePolicyLoss(input, losses, dLocal, 'seq-mean-token-mean');
  return {
    pgLoss,
    dLogProb,
    metrics: {
      'actor/pg_clipfrac': maskedMean(clipped, responseMask),
      'actor/ppo_kl': maskedMean(negKl, responseMask),
      'actor/pg_clipfrac_lower': 0,
    },
  };
}
