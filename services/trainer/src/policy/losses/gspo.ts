import { np } from '@rl/policy';
import { aggregate, constant, f32, isWeighted, maskedMean, perToken, sg } from './helpers.ts';
import type { PgLoss, PpoLossConfig } from './types.ts';

/**
 * verl `compute_policy_loss_gspo` : the value of each token's
 * ratio is its row's geometric mean, the gradient its own log-prob's; always seq-mean-token-mean.
 */
export const gspoLoss =
  (c: PpoLossConfig): PgLoss =>
  (ctx) => {
    const mask = ctx.mask;
    const adv = ctx.adv;
    const logp = ctx.logp;
    const negApproxKl = logp.ref.sub(ctx.old);
    const lengths = np.maximum(np.sum(mask.ref, 1), 1);
    const seqLogRatio = sg(np.sum(negApproxKl.ref.mul(mask.ref), 1).div(lengths));
    const logS = np.minimum(logp.ref.sub(sg(logp)).add(perToken(seqLogRatio)), 10);
    const s = np.exp(logS);
    const pg1 = adv.ref.mul(s.ref).mul(-1);
    const pg2 = adv.mul(np.clip(s, 1 - c.clip_ratio_low, 1 + c.clip_ratio_high)).mul(-1);
    const pg = np.maximum(pg1.ref, pg2.ref);
    const metrics = {
      'actor/pg_clipfrac': maskedMean(f32(np.greater(pg2, pg1)), mask.ref),
      'actor/ppo_kl': maskedMean(sg(negApproxKl).mul(-1), mask.ref),
      'actor/pg_clipfrac_lower': constant(0),
    };
    return { loss: aggregate(isWeighted(ctx, pg), mask, 'seq-mean-token-mean', c.loss_scale_factor), metrics };
  };
