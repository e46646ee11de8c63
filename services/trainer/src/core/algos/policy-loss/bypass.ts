import { computePolicyLossReinforce } from './reinforce.ts';
import type { PolicyLossFnInput, PolicyLossFnResult } from './types.ts';
import { computePolicyLossVanilla } from './vanilla.ts';
import { computeRolloutCorrection } from '../rollout-correction/correction.ts';
import { assertPolicyLossInput, detached } from './common.ts';
import { invalid } from '../types.ts';

/**
 * verl `compute_policy_loss_bypass_mode` (loss_mode "bypass_mode"; `oldLogProb` holds the rollout
 * log-probs). It computes rollout correction between the current and rollout policies without
 * gradient (IS weights, rejection mask, rollout_corr/* metrics), then
 * - loss_type "reinforce": {@link computePolicyLossReinforce} with those IS weights on the rejected mask;
 * - loss_type "ppo_clip": vanilla PPO on the rejected mask, with no IS weights (the ratio is the IS ratio).
 * Incoming `rolloutIsWeights` are ignored, as verl recomputes them. The rollout_corr metrics are
 * merged into the returned metrics.
 */
export function computePolicyLossBypassMode(input: PolicyLossFnInput): PolicyLossFnResult {
  assertPolicyLossInput(input);
  const rc = input.rolloutCorrection;
  if (rc === undefined) throw invalid('rolloutCorrection', 'bypass_mode needs policy_loss.rollout_correction');
  const lossType = rc.lossType ?? 'ppo_clip';
  // torch.no_grad() in verl: the weights and the mask are constants of the loss.
  const corr = computeRolloutCorrection(input.shape, detached(input), input.oldLogProb, input.responseMask, rc);
  const base = { ...input, responseMask: corr.mask, rolloutIsWeights: undefined };
  let pg: PolicyLossFnResult;
  if (lossType === 'reinforce') {
    pg = computePolicyLossReinforce({
      ...base,
      lossAggMode: input.lossAggMode ?? 'token-mean',
      ...(corr.weights !== null && { rolloutIsWeights: corr.weights }),
    });
  } else if (lossType === 'ppo_clip') {
    const v = computePolicyLossVanilla({ ...base, lossAggMode: input.lossAggMode ?? 'token-mean' });
    pg = {
      pgLoss: v.pgLoss,
      dLogProb: v.dLogProb,
      metrics: { 'actor/pg_clipfrac': v.pgClipfrac, 'actor/ppo_kl': v.ppoKl, 'actor/pg_clipfrac_lower': v.pgClipfracLower },
    };
  } else throw invalid('rolloutCorrection.lossType', `invalid loss_type ${String(lossType)}; must be "reinforce" or "ppo_clip"`);
  return { ...pg, metrics: { ...pg.metrics, ...corr.metrics } };
}
