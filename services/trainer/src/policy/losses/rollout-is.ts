import { np, type Tensor } from '@rl/policy';
import { f32, maskedMean, perToken, rowMaskedMean, rowMaskedSum } from './helpers.ts';
import { maskedMax, maskedMin, rowSubset } from './rollout-stats.ts';

/**
 * verl `compute_rollout_correction_weights` + `compute_is_metrics` on a detached log-ratio. Returns
 * the truncated (optionally batch normalised) weights and the unprefixed rollout_is_* metrics.
 * Row statistics run over `rows` ([B], the batch's rows). Consumes logRatio, mask and rows.
 */
export function rolloutIsWeights(
  logRatio: Tensor,
  mask: Tensor,
  rows: Tensor,
  level: 'token' | 'sequence',
  threshold: number,
  batchNormalize: boolean,
): { weights: Tensor; metrics: Record<string, Tensor> } {
  const lower = 1 / threshold;
  const r = rowSubset(rows);
  const m: Record<string, Tensor> = {};
  let raw: Tensor;
  if (level === 'token') {
    raw = np.exp(np.clip(logRatio, -20, 20)).mul(mask.ref);
    m.rollout_is_ratio_fraction_high = maskedMean(f32(np.greater(raw.ref, threshold)), mask.ref);
    m.rollout_is_ratio_fraction_low = maskedMean(f32(np.less(raw.ref, lower)), mask.ref);
    m.rollout_is_max = maskedMax(raw.ref, mask.ref);
    m.rollout_is_min = maskedMin(raw.ref, mask.ref);
  } else {
    const seq = rowMaskedSum(logRatio, mask.ref);
    raw = perToken(np.exp(np.clip(seq.ref, -20, 20))).mul(mask.ref);
    m.rollout_is_max = np.exp(np.minimum(r.max(seq.ref), 20));
    m.rollout_is_min = np.exp(r.min(seq.ref));
    m.rollout_is_ratio_fraction_high = r.fraction(np.greater(seq.ref, Math.log(threshold)));
    m.rollout_is_ratio_fraction_low = r.fraction(np.less(seq, Math.log(lower)));
  }
  m.rollout_is_mean = maskedMean(raw.ref, mask.ref);
  const bounded = np.clip(raw.ref, lower, threshold);
  const boundedMean = maskedMean(bounded.ref, mask.ref);
  const variance = maskedMean(np.square(bounded.ref), mask.ref).sub(np.square(boundedMean.ref));
  m.rollout_is_std = np.where(np.greater(np.sum(mask.ref), 1), np.sqrt(np.maximum(variance, 0)), 0);
  m.rollout_is_eff_sample_size = np.reciprocal(maskedMean(np.square(bounded.div(boundedMean.add(1e-8))), mask.ref));
  const seqMeans = rowMaskedMean(raw.ref, mask.ref);
  m.rollout_is_seq_mean = r.mean(seqMeans.ref);
  m.rollout_is_seq_std = r.std(seqMeans.ref);
  m.rollout_is_seq_max = r.max(seqMeans.ref);
  m.rollout_is_seq_min = r.min(seqMeans.ref);
  m.rollout_is_seq_max_deviation = r.max(np.abs(seqMeans.ref.sub(1)));
  m.rollout_is_seq_fraction_high = r.fraction(np.greater(seqMeans.ref, threshold));
  m.rollout_is_seq_fraction_low = r.fraction(np.less(seqMeans, lower));
  r.dispose();
  let weights = np.minimum(raw, threshold);
  if (batchNormalize) {
    let norm: Tensor;
    if (level === 'token') norm = maskedMean(weights.ref, mask.ref);
    else {
      const validRows = f32(np.greater(np.sum(mask.ref, 1), 0));
      norm = np.sum(rowMaskedMean(weights.ref, mask.ref).mul(validRows.ref)).div(np.maximum(np.sum(validRows), 1e-8));
    }
    const apply = np.greater(norm.ref, 1e-8);
    weights = weights.div(np.where(apply.ref, norm.ref, 1));
    m.rollout_is_batch_norm_factor = np.where(apply, norm, 1);
  }
  mask.dispose();
  return { weights, metrics: m };
}
