import { aggregate, isWeighted } from './helpers.ts';
import type { PgLoss, PpoLossConfig } from './types.ts';

/** verl `compute_policy_loss_gpg`: agg(-logp * A), no metrics. */
export const gpgLoss =
  (c: PpoLossConfig): PgLoss =>
  (ctx) => {
    ctx.old.dispose();
    return { loss: aggregate(isWeighted(ctx, ctx.logp.mul(ctx.adv).mul(-1)), ctx.mask, c.loss_agg_mode, c.loss_scale_factor), metrics: {} };
  };
