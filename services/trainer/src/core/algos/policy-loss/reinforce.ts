import { maskedMean } from '../masked.ts';
import { aggregatePolicyLoss, assertPolicyLossInput, isWeight } from './common.ts';
import type { PolicyLossFnInput, PolicyLossFnResult } from './types.ts';
import { at } from '../types.ts';

/**
 * verl `compute_policy_loss_reinforce` (bypass_mode's "reinforce" loss; not registered on its own):
 * loss = agg(-A * logp [* w]) with w the detached IS weights; `oldLogProb` is the rollout policy.
 * Metric: actor/ppo_kl = masked mean of -(logp - rollout). verl's signature defaults the
 * aggregation to "seq-mean-token-sum", but bypass_mode always passes loss_agg_mode.
 */
export function computePolicyLossReinforce(input: PolicyLossFnInput): PolicyLossFnResult {
  assertPolicyLossInput(input);
  const { oldLogProb, logProb, advantages, responseMask } = input;
  const n = logProb.length;
  const losses = new Float64Array(n);
  const dLocal = new Float64Array(n);
  const negKl = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const w = isWeight(input, i);
    losses[i] = -at(advantages, i) * at(logProb, i) * w;
    dLocal[i] = -at(advantages, i) * w;
    negKl[i] = -(at(logProb, i) - at(oldLogProb, i));
  }
  const { pgLoss, dLogProb } = aggregatePolicyLoss(input, losses, dLocal, input.lossAggMode ?? 'seq-mean-token-sum');
  return { pgLoss, dLogProb, metrics: { 'actor/ppo_kl': maskedMean(negKl, responseMask) } };
}
