import { maskedMean } from '../masked.ts';
import { aggregatePolicyLoss, assertPolicyLossInput, clamp, isWeight, passes } from './common.ts';
import type { PolicyLossFnInput, PolicyLossFnResult } from './types.ts';
import { at, invalid } from '../types.ts';

const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));

/**
 * verl `compute_policy_loss_sapo` (loss_mode "sapo", https://arxiv.org/abs/2511.20347). Per token,
 * with r = exp(clamp(logp - old, -20, 20)) and tau = A > 0 ? tau_pos : tau_neg:
 *   gate = sigmoid(tau (r - 1)) * 4 / tau,  loss = -gate * A [* IS weight]
 * always aggregated with "seq-mean-token-mean". d gate / dr = 4 sigmoid (1 - sigmoid).
 * Metrics: pg_clipfrac = 0, ppo_kl = masked mean of -clamp(logp - old), pg_clipfrac_lower = 0.
 */
export function computePolicyLossSapo(input: PolicyLossFnInput): PolicyLossFnResult {
  assertPolicyLossInput(input);
  const { oldLogProb, logProb, advantages, responseMask } = input;
  const tauPos = input.tauPos ?? 1.0;
  const tauNeg = input.tauNeg ?? 1.05;
  // verl divides by tau; a zero temperature would give inf/NaN losses.
  if (tauPos === 0) throw invalid('tauPos', 'must not be 0');
  if (tauNeg === 0) throw invalid('tauNeg', 'must not be 0');
  const n = logProb.length;
  const losses = new Float64Array(n);
  const dLocal = new Float64Array(n);
  const negKl = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const a = at(advantages, i);
    const diff = at(logProb, i) - at(oldLogProb, i);
    const logRatio = clamp(diff, -20, 20);
    const ratio = Math.exp(logRatio);
    const tau = a > 0 ? tauPos : tauNeg;
    const sig = sigmoid(tau * (ratio - 1));
    const w = isWeight(input, i);
    losses[i] = -sig * (4 / tau) * a * w;
    dLocal[i] = -a * w * 4 * sig * (1 - sig) * ratio * passes(diff, -20, 20);
    negKl[i] = -logRatio;
  }
  const { pgLoss, dLogProb } = aggregatePolicyLoss(input, losses, dLocal, 'seq-mean-token-mean');
  return {
    pgLoss,
    dLogProb,
    metrics: { 'actor/pg_clipfrac': 0, 'actor/ppo_kl': maskedMean(negKl, responseMask), 'actor/pg_clipfrac_lower': 0 },
  };
}
