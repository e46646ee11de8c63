import { np } from '@rl/policy';
import { AppError, ErrorCode } from '@rl/service-kit';
import { aggregate, ascendingRank, f32, isWeighted, lookup, maskedMean, sg } from './helpers.ts';
import type { PgLoss, PpoLossConfig } from './types.ts';

/** verl clip_cov: clip_num = max(int(clip_cov_ratio * mask.sum()), 1), in double precision as Python's int() truncates it. */
export const clipCovCount = (ratio: number, maskTotal: number): number => Math.max(Math.trunc(ratio * maskTotal), 1);

/** Per-token input with one uniform [0, 1) key per token, drawn from a seeded rng in row-major order. */
export const CLIP_COV_KEYS = 'clip_cov_keys';

/**
 * verl `compute_policy_loss_clip_cov`. verl detaches a
 * torch.randperm-chosen subset of the candidate tokens; a jit-compiled loss cannot draw from a JS
 * generator, so the batch carries `clip_cov_keys` and the candidates with the smallest keys win
 * (ranked with argsort, lower index on equal keys): the same distribution as verl's draw, a
 * uniformly random subset of min(clip_num, #candidates) tokens, but not torch's stream. The count max(int(ratio * n), 1) is tabulated per possible n in JS (Python's double rounding).
 */
export const clipCovLoss = (c: PpoLossConfig): PgLoss => {
  const p = c.policy_loss;
  return (ctx) => {
    if (!ctx.hasInput(CLIP_COV_KEYS)) {
      throw new AppError(ErrorCode.BadRequest, `loss_mode clip_cov needs the per-token input ${CLIP_COV_KEYS}`);
    }
    const mask = ctx.mask;
    const adv = ctx.adv;
    const logp = ctx.logp;
    const old = ctx.old;
    const [rows = 0, cols = 0] = mask.shape;
    const counts = Array.from({ length: rows * cols + 1 }, (_, n) => clipCovCount(p.clip_cov_ratio, n));
    const valid = np.greater(mask.ref, 0);
    // The selection is boolean: it reads detached values only.
    const sgLogp = sg(logp.ref);
    const sgNegApproxKl = sgLogp.ref.sub(old.ref);
    const sgRatio = np.exp(sgNegApproxKl.ref);
    const clipByOrigin = np.logicalAnd(
      np.greater(adv.ref.mul(np.clip(sgRatio.ref, 1 - c.clip_ratio_low, 1 + c.clip_ratio_high)).mul(-1), adv.ref.mul(sgRatio).mul(-1)),
      valid.ref,
    );
    const cov = adv.ref.sub(maskedMean(adv.ref, mask.ref)).mul(sgLogp.sub(maskedMean(sg(logp.ref), mask.ref)));
    const inBounds = np.logicalAnd(np.less(cov.ref, p.clip_cov_ub), np.greater(cov, p.clip_cov_lb));
    const candidate = np.logicalAnd(np.logicalAnd(inBounds, valid), np.logicalNot(clipByOrigin));
    const keys = np.where(candidate.ref, ctx.input(CLIP_COV_KEYS), 2);
    const chosen = np.logicalAnd(candidate, np.less(ascendingRank(keys), lookup(counts, np.sum(mask.ref))));
    const corr = f32(np.logicalNot(chosen.ref));
    const ratio = np.exp(logp.sub(old));
    const pg1 = adv.ref.mul(ratio.ref).mul(-1);
    const pg2 = adv.mul(np.clip(ratio, 1 - c.clip_ratio_low, 1 + c.clip_ratio_high)).mul(-1);
    const pg = np.maximum(pg1, pg2).mul(corr);
    const metrics = { 'actor/pg_clipfrac': maskedMean(f32(chosen), mask.ref), 'actor/ppo_kl': maskedMean(sgNegApproxKl.mul(-1), mask.ref) };
    return { loss: aggregate(isWeighted(ctx, pg), mask, c.loss_agg_mode, c.loss_scale_factor), metrics };
  };
};
