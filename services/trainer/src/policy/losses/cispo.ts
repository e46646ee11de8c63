import { np } from '@rl/policy';
import { aggregate, constant, f32, isWeighted, maskedMean, sg } from './helpers.ts';
import type { PgLoss, PpoLossConfig } from './types.ts';

/** verl `compute_policy_loss_cispo`: -sg(clip(r)) A logp. */
export const cispoLoss =
  (c: PpoLossConfig): PgLoss =>
  (ctx) => {
    const mask = ctx.mask;
    const logp = ctx.logp;
    const negApproxKl = sg(np.clip(logp.ref.sub(ctx.old), -20, 20));
    const ratio = np.exp(negApproxKl.ref);
    const clipped = np.clip(ratio.ref, 1 - c.clip_ratio_low, 1 + c.clip_ratio_high);
    const pg = clipped.ref.mul(ctx.adv).mul(logp).mul(-1);
    const metrics = {
      'actor/pg_clipfrac': maskedMean(f32(np.notEqual(ratio, clipped)), mask.ref),
      'actor/ppo_kl': maskedMean(negApproxKl.mul(-1), mask.ref),
      'actor/pg_clipfrac_lower': constant(0),
    };
    return { loss: aggregate(isWeighted(ctx, pg), mask, c.loss_agg_mode, c.loss_scale_factor), metrics };
  };
