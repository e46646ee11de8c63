import { AppError, ErrorCode } from '@rl/service-kit';
import type { Tensor } from '@rl/policy';
import { parseRolloutRsOptions, parseRolloutRsThresholds, type RsBounds } from '../../core/algos/index.ts';
import { aggregate, maskedMean, ROLLOUT_IS_WEIGHTS, sg } from './helpers.ts';
import { offpolicyMetrics } from './rollout-offpolicy.ts';
import { rolloutIsWeights } from './rollout-is.ts';
import { rolloutRejection, type RsCriterion } from './rollout-rs.ts';
import type { PgContext, PgLoss, PpoLossConfig } from './types.ts';
import { vanillaLoss } from './vanilla.ts';

function criteriaOf(rc: PpoLossConfig['policy_loss']['rollout_correction']): RsCriterion[] {
  if (rc.rollout_rs === null) return [];
  if (rc.rollout_rs_threshold === null) {
    throw new AppError(ErrorCode.InvalidParams, 'rollout_rs_threshold must be provided when rollout_rs is set', { details: { field: 'rolloutRsThreshold' } });
  }
  const options = parseRolloutRsOptions(rc.rollout_rs);
  const bounds = parseRolloutRsThresholds(options, rc.rollout_rs_threshold);
  return options.map((option) => ({ option, bounds: bounds.get(option) as RsBounds }));
}

/**
 * verl `compute_policy_loss_bypass_mode`: rollout
 * correction between the detached current and the rollout (= old) log-probs, then REINFORCE with
 * the IS weights or vanilla PPO without them, both on the rejection-applied mask. Thresholds are
 * parsed once per job. verl raises on a batch without valid tokens; a traced loss cannot, so such
 * a (filler) batch yields 0 loss and undefined rollout_corr metrics.
 */
export const bypassModeLoss = (c: PpoLossConfig): PgLoss => {
  const rc = c.policy_loss.rollout_correction;
  const criteria = criteriaOf(rc);
  const vanilla = vanillaLoss(c);
  return (ctx) => {
    const mask = ctx.mask;
    const logp = ctx.logp;
    const old = ctx.old;
    const logRatio = sg(logp.ref).sub(old.ref);
    const found: Record<string, Tensor> = {};
    let weights: Tensor | null = null;
    if (rc.rollout_is !== null && rc.rollout_is_threshold !== null) {
      const is = rolloutIsWeights(logRatio.ref, mask.ref, ctx.rows, rc.rollout_is, rc.rollout_is_threshold, rc.rollout_is_batch_normalize);
      weights = is.weights;
      Object.assign(found, is.metrics);
    }
    let effective = mask.ref;
    if (criteria.length > 0) {
      const rs = rolloutRejection(logRatio.ref, mask.ref, ctx.rows, criteria);
      effective.dispose();
      effective = rs.mask;
      Object.assign(found, rs.metrics);
    }
    logRatio.dispose();
    Object.assign(found, offpolicyMetrics(sg(logp.ref), old.ref, mask, ctx.rows));
    const metrics: Record<string, Tensor> = {};
    for (const [k, v] of Object.entries(found)) metrics[`rollout_corr/${k}`] = v;
    let loss: Tensor;
    if (rc.loss_type === 'reinforce') {
      metrics['actor/ppo_kl'] = maskedMean(sg(logp.ref).sub(old).mul(-1), effective.ref);
      let pg = ctx.adv.mul(logp).mul(-1);
      if (weights !== null) pg = pg.mul(weights);
      loss = aggregate(pg, effective, c.loss_agg_mode, c.loss_scale_factor);
    } else {
      weights?.dispose();
      const inner: PgContext = {
        get logp() {
          return logp.ref;
        },
        get old() {
          return old.ref;
        },
        get adv() {
          return ctx.adv;
        },
        get mask() {
          return effective.ref;
        },
        get rows() {
          return ctx.rows;
        },
        input: (name) => ctx.input(name),
        // verl recomputes the IS weights in bypass mode: incoming ones are not the inner loss's.
        hasInput: (name) => name !== ROLLOUT_IS_WEIGHTS && ctx.hasInput(name),
      };
      const r = vanilla(inner);
      Object.assign(metrics, r.metrics);
      loss = r.loss;
      for (const t of [logp, old, effective]) t.dispose();
    }
    return { loss, metrics };
  };
};
