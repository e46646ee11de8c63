import { nn, np } from '@rl/policy';
import { aggregate, constant, f32, isWeighted, maskedMean } from './helpers.ts';
import type { PgLoss, PpoLossConfig } from './types.ts';

/** verl `compute_policy_loss_sapo`: soft gate, seq-mean-token-mean. */
export const sapoLoss =
  (c: PpoLossConfig): PgLoss =>
  (ctx) => {
    const mask = ctx.mask;
    const adv = ctx.adv;
    const negApproxKl = np.clip(ctx.logp.sub(ctx.old), -20, 20);
    const ratio = np.exp(negApproxKl.ref);
    // tau = tau_pos where A > 0, else tau_neg.
    const tau = f32(np.greater(adv.ref, 0))
      .mul(c.tau_pos - c.tau_neg)
      .add(c.tau_neg);
    const gate = nn
      .sigmoid(tau.ref.mul(ratio.sub(1)))
      .mul(4)
      .div(tau);
    const pg = gate.mul(adv).mul(-1);
    const metrics = { 'actor/pg_clipfrac': constant(0), 'actor/ppo_kl': maskedMean(negApproxKl.mul(-1), mask.ref), 'actor/pg_clipfrac_lower': constant(0) };
    return { loss: aggregate(isWeighted(ctx, pg), mask, 'seq-mean-token-mean', c.loss_scale_factor), metrics };
  };
