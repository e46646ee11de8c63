import { np } from '@rl/policy';
import { aggregate, f32, isWeighted, maskedMean } from './helpers.ts';
import type { PgLoss, PpoLossConfig } from './types.ts';

/** verl `compute_policy_loss_vanilla` in jax-js ops. */
export const vanillaLoss =
  (c: PpoLossConfig): PgLoss =>
  (ctx) => {
    const mask = ctx.mask;
    const adv = ctx.adv;
    // verl: negative_approx_kl = log_prob - old_log_prob, clamped to [-20, 20] before exp.
    const negApproxKl = np.clip(ctx.logp.sub(ctx.old), -20, 20);
    const ratio = np.exp(negApproxKl.ref);
    const pg1 = adv.ref.mul(ratio.ref).mul(-1);
    const pg2 = adv.ref.mul(np.clip(ratio, 1 - c.clip_ratio_low, 1 + c.clip_ratio_high)).mul(-1);
    const clipped1 = np.maximum(pg1.ref, pg2.ref);
    const pg3 = adv.ref.mul(-c.clip_ratio_c);
    const clipped2 = np.minimum(pg3.ref, clipped1.ref);
    const negative = np.less(adv, 0);
    const pgLosses = np.where(negative.ref, clipped2, clipped1.ref);
    const metrics = {
      'actor/pg_clipfrac': maskedMean(f32(np.greater(pg2, pg1)), mask.ref),
      'actor/ppo_kl': maskedMean(negApproxKl.mul(-1), mask.ref),
      'actor/pg_clipfrac_lower': maskedMean(f32(np.greater(clipped1, pg3)).mul(f32(negative)), mask.ref),
    };
    return { loss: aggregate(isWeighted(ctx, pgLosses), mask, c.loss_agg_mode, c.loss_scale_factor), metrics };
  };
