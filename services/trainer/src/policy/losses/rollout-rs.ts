import { np, type Tensor } from '@rl/policy';
import type { RsBounds, RolloutRsOption } from '../../core/algos/index.ts';
import { f32, maskedMean, perToken, rowMaskedMean, rowMaskedSum } from './helpers.ts';
import { maskedMax, maskedMin, rowSubset } from './rollout-stats.ts';

/** A parsed rollout_rs criterion, fixed per job. */
export interface RsCriterion {
  readonly option: RolloutRsOption;
  readonly bounds: RsBounds;
}

function tokenStat(option: RolloutRsOption, x: Tensor): Tensor {
  if (option.endsWith('k1')) return x.mul(-1);
  if (option.endsWith('k2')) return np.square(x).mul(0.5);
  return np.exp(x.ref).sub(1).sub(x);
}

function rowStat(option: RolloutRsOption, stat: Tensor, mask: Tensor): Tensor {
  if (option.startsWith('seq_sum')) return rowMaskedSum(stat, mask);
  if (option.startsWith('seq_mean')) return rowMaskedMean(stat, mask);
  const max = np.max(np.where(np.notEqual(mask, 0), stat, -Infinity), 1);
  return np.where(np.equal(max.ref, -Infinity), 0, max);
}

/**
 * verl `compute_rollout_rejection_mask` + `compute_rs_metrics`. Returns mask * keep and the unprefixed
 * metrics. Assumes at least one valid token (verl raises before getting here otherwise). Consumes logRatio and mask.
 */
export function rolloutRejection(
  logRatio: Tensor,
  mask: Tensor,
  batchRows: Tensor,
  criteria: readonly RsCriterion[],
): { mask: Tensor; metrics: Record<string, Tensor> } {
  const x = np.clip(logRatio, -20, 20);
  const rows = rowSubset(f32(np.greater(np.sum(mask.ref, 1), 0)));
  const maskBool = f32(np.notEqual(mask.ref, 0));
  const total = np.sum(mask.ref);
  let combined: Tensor | null = null;
  const m: Record<string, Tensor> = {};
  for (const { option, bounds } of criteria) {
    const p = `rollout_rs_${option}`;
    const isK1 = option.endsWith('k1');
    const lower = isK1 ? Math.log(bounds.lower as number) : 0;
    const upper = isK1 ? Math.log(bounds.upper) : bounds.upper;
    const tokens = tokenStat(option, x.ref);
    const perSeq = option.startsWith('token') ? null : rowStat(option, tokens.ref, mask.ref);
    const shape = tokens.shape;
    if (perSeq !== null) tokens.dispose();
    const stat = perSeq === null ? tokens : np.broadcastTo(perToken(perSeq.ref), shape);
    const keep = f32(isK1 ? np.logicalAnd(np.greaterEqual(stat.ref, lower), np.lessEqual(stat.ref, upper)) : np.lessEqual(stat.ref, upper));
    combined = combined === null ? keep.ref : combined.mul(keep.ref);
    const seqValues = perSeq ?? rowMaskedMean(stat.ref, mask.ref);
    m[`${p}_mean`] = maskedMean(stat.ref, mask.ref);
    if (perSeq !== null) {
      m[`${p}_max`] = rows.max(seqValues.ref);
      m[`${p}_min`] = rows.min(seqValues.ref);
      m[`${p}_fraction_high`] = rows.fraction(np.greater(seqValues.ref, upper));
      m[`${p}_fraction_low`] = isK1 ? rows.fraction(np.less(seqValues.ref, lower)) : np.array(0);
    } else {
      m[`${p}_max`] = maskedMax(stat.ref, mask.ref);
      m[`${p}_min`] = maskedMin(stat.ref, mask.ref);
      m[`${p}_fraction_high`] = maskedMean(f32(np.greater(stat.ref, upper)), mask.ref);
      m[`${p}_fraction_low`] = isK1 ? maskedMean(f32(np.less(stat.ref, lower)), mask.ref) : np.array(0);
    }
    const bounded = np.clip(stat, isK1 ? lower : 0, upper);
    const bm = maskedMean(bounded.ref, mask.ref);
    const variance = maskedMean(np.square(bounded), mask.ref).sub(np.square(bm));
    m[`${p}_std`] = np.where(np.greater(total.ref, 1), np.sqrt(np.maximum(variance, 0)), 0);
    m[`${p}_seq_mean`] = rows.mean(seqValues.ref);
    m[`${p}_seq_std`] = rows.std(seqValues.ref);
    m[`${p}_seq_max`] = rows.max(seqValues.ref);
    m[`${p}_seq_min`] = rows.min(seqValues.ref);
    m[`${p}_seq_max_deviation`] = rows.max(np.abs(seqValues.ref));
    m[`${p}_seq_fraction_high`] = rows.fraction(np.greater(seqValues.ref, upper));
    if (isK1) m[`${p}_seq_fraction_low`] = rows.fraction(np.less(seqValues.ref, lower));
    seqValues.dispose();
    const rejected = keep.ref.mul(-1).add(1);
    m[`${p}_masked_fraction`] = maskedMean(rejected.ref, mask.ref);
    // A row is rejected when any of its valid tokens is.
    m[`${p}_seq_masked_fraction`] = rows.mean(np.max(rejected.mul(maskBool.ref), 1));
    keep.dispose();
  }
  const final = combined ?? np.onesLike(mask.ref);
  m.rollout_rs_masked_fraction = maskedMean(final.ref.mul(-1).add(1), mask.ref);
  const all = rowSubset(batchRows);
  m.rollout_rs_seq_masked_fraction = all.mean(np.max(f32(np.lessEqual(final.ref, 0.5)).mul(maskBool), 1));
  all.dispose();
  rows.dispose();
  x.dispose();
  total.dispose();
  return { mask: mask.mul(final), metrics: m };
}
