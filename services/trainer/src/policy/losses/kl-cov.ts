import { np } from '@rl/policy';
import { aggregate, ascendingRank, f32, isWeighted, lookup, maskedMean, sg, torchAbs } from './helpers.ts';
import type { PgLoss, PpoLossConfig } from './types.ts';

/**
 * verl `compute_policy_loss_kl_cov`: -A r everywhere, plus
 * ppo_kl_coef |logp - old| on the top max(1, int(n_valid * kl_cov_ratio)) valid tokens by
 * covariance (A - mean A)(logp - mean logp). The top-k is a stable rank (argsort of -cov; masked
 * tokens get -inf): on exactly equal covariances at the cut it keeps the lower index, where
 * torch.topk's CPU heap/introselect (not stable) may keep another one.
 */
export const klCovLoss = (c: PpoLossConfig): PgLoss => {
  const p = c.policy_loss;
  return (ctx) => {
    const mask = ctx.mask;
    const adv = ctx.adv;
    const logp = ctx.logp;
    const [rows = 0, cols = 0] = mask.shape;
    // n = 0 selects nothing (verl skips when no token is valid).
    const counts = Array.from({ length: rows * cols + 1 }, (_, n) => (n === 0 ? 0 : Math.max(1, Math.trunc(n * p.kl_cov_ratio))));
    const valid = f32(np.greater(mask.ref, 0));
    const nValid = np.sum(valid.ref);
    const sgLogp = sg(logp.ref);
    const advMean = np.sum(adv.ref.mul(valid.ref)).div(np.maximum(nValid.ref, 1));
    const logpMean = np.sum(sgLogp.ref.mul(valid.ref)).div(np.maximum(nValid.ref, 1));
    const cov = adv.ref.sub(advMean).mul(sgLogp.sub(logpMean));
    const ranked = np.where(np.greater(valid.ref, 0), cov.mul(-1), Infinity);
    const chosen = valid.mul(f32(np.less(ascendingRank(ranked), lookup(counts, nValid))));
    const negApproxKl = logp.sub(ctx.old);
    const absKl = torchAbs(negApproxKl.ref);
    const pg = adv.mul(np.exp(negApproxKl)).mul(-1).add(absKl.ref.mul(chosen).mul(p.ppo_kl_coef));
    const metrics = { 'actor/ppo_kl': maskedMean(sg(absKl), mask.ref) };
    return { loss: aggregate(isWeighted(ctx, pg), mask, c.loss_agg_mode, c.loss_scale_factor), metrics };
  };
};
