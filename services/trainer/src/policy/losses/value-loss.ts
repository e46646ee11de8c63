// verl's critic loss (core_algos.compute_value_loss, dp_critic.update_critic)
// with the policy library's ops, differentiated through the critic's value
// head. Inputs per token: `old_values` (the values at rollout time, centre of
// the clip window), `returns` (GAE targets), `response_mask`. losses.golden.test.ts checks
// it against verl's golden numbers (value and d loss / d values).
import { np, type PolicyLoss } from '@rl/policy';
import { aggregate, f32, maskedMean, torchMaximum, torchMinimum } from './helpers.ts';
import type { LossAggMode } from './modes.ts';

/** Critic loss settings, fixed for a job (the loss is compiled once per function object). */
export interface ValueLossConfig {
  /** verl critic.cliprange_value. */
  cliprangeValue: number;
  lossAggMode: LossAggMode;
  /** seq-mean-token-sum-norm divisor. */
  lossScaleFactor: number;
}

/** 0.5 * agg(max((v - R)^2, (clip(v, old - c, old + c) - R)^2)); metrics critic/vf_clipfrac and critic/vpred_mean (verl names). */
export function createValueLoss(c: ValueLossConfig): PolicyLoss {
  return (t) => {
    const mask = t.mask.mul(t.input('response_mask'));
    const vpreds = t.values;
    const old = t.input('old_values');
    const returns = t.input('returns');
    // verl clip_by_value: max(min(x, hi), lo), with torch's gradient on ties (a prediction exactly on the window's edge).
    const clipped = torchMaximum(torchMinimum(vpreds.ref, old.ref.add(c.cliprangeValue)), old.sub(c.cliprangeValue));
    const l1 = np.square(vpreds.ref.sub(returns.ref));
    const l2 = np.square(clipped.sub(returns));
    const vfLoss = aggregate(torchMaximum(l1.ref, l2.ref), mask.ref, c.lossAggMode, c.lossScaleFactor).mul(0.5);
    return {
      loss: vfLoss.ref,
      metrics: {
        'critic/vf_loss': vfLoss,
        'critic/vf_clipfrac': maskedMean(f32(np.greater(l2, l1)), mask.ref),
        'critic/vpred_mean': maskedMean(vpreds, mask),
      },
    };
  };
}
