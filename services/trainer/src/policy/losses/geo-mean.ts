import { np } from '@rl/policy';
import { f32, maskedMean, ROLLOUT_IS_WEIGHTS } from './helpers.ts';
import type { PgLoss, PpoLossConfig } from './types.ts';

/**
 * verl `compute_policy_loss_geo_mean`: a row's ratio is the
 * geometric mean of its sign-clipped token ratios; the loss is the plain mean over the batch's rows
 * (all-masked ones included, filler rows not).
 */
export const geoMeanLoss =
  (c: PpoLossConfig): PgLoss =>
  (ctx) => {
    const mask = ctx.mask;
    const adv = ctx.adv;
    const negApproxKl = ctx.logp.sub(ctx.old);
    const sign = np.sign(adv.ref);
    const clampedKl = np.clip(negApproxKl.ref, -c.clip_ratio_low, c.clip_ratio_high);
    const klMin = sign.ref.mul(np.minimum(sign.ref.mul(negApproxKl.ref), sign.mul(clampedKl.ref)));
    const count = np.sum(mask.ref, 1).add(1e-8);
    const ratio = np.exp(np.sum(klMin.mul(mask.ref), 1).div(count.ref));
    const rowAdv = np.sum(adv.ref.mul(mask.ref), 1).div(count.ref);
    let perRow = rowAdv.mul(ratio).mul(-1);
    // IS weights enter as each row's geometric mean (verl: exp(sum(log(w + 1e-10) * m) / n)).
    if (ctx.hasInput(ROLLOUT_IS_WEIGHTS)) perRow = perRow.mul(np.exp(np.sum(np.log(ctx.input(ROLLOUT_IS_WEIGHTS).add(1e-10)).mul(mask.ref), 1).div(count.ref)));
    const rows = ctx.rows;
    const loss = np.sum(perRow.mul(rows.ref)).div(np.maximum(np.sum(rows), 1));
    count.dispose();
    const clipped = f32(np.notEqual(negApproxKl.ref, clampedKl));
    const metrics = {
      'actor/pg_clipfrac': maskedMean(clipped.ref.mul(f32(np.greater(adv.ref, 0))), mask.ref),
      'actor/ppo_kl': maskedMean(negApproxKl.mul(-1), mask.ref),
      'actor/pg_clipfrac_lower': maskedMean(clipped.mul(f32(np.less(adv, 0))), mask),
    };
    return { loss, metrics };
  };
