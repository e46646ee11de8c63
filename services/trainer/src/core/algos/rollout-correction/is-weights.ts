import { maskedMean, maskedMeanRows, maskSum } from '../masked.ts';
import { fraction, maxOf, mean, minOf, pick, rowCounts, rowMaskedSums, stdUnbiased } from './stats.ts';
import { at, invalid, type Mask, type Shape } from '../types.ts';

/** verl `rollout_is`: per-token or per-sequence importance weights. */
export type RolloutIsLevel = 'token' | 'sequence';

// verl rollout_corr_helper SAFETY_BOUND: log-ratios are clamped to ±20 before exp.
const SAFETY = 20;
const safe = (x: number) => Math.min(Math.max(x, -SAFETY), SAFETY);

/** Inputs of {@link computeRolloutIsWeights}. */
export interface RolloutIsInput {
  readonly shape: Shape;
  /** log(pi_train / pi_rollout) per token. */
  readonly logRatio: ArrayLike<number>;
  readonly mask: Mask;
  readonly level: RolloutIsLevel;
  /** Upper truncation of the weights. @default 2.0 */
  readonly threshold?: number;
  /** Divide the weights by their (masked) batch mean. @default false */
  readonly batchNormalize?: boolean;
}

/**
 * verl `compute_rollout_correction_weights` + `compute_is_metrics`: w = exp(clamp(log r)) per token
 * ("token") or exp(clamp(sum_t log r m)) per row ("sequence"), times the mask; metrics are taken
 * before truncation; then w = min(w, threshold), optionally divided by its batch mean (token: masked
 * mean; sequence: mean of the per-row masked means over non-empty rows) when that mean > 1e-8.
 * Metric names are unprefixed (rollout_is_mean, ..., rollout_is_batch_norm_factor).
 */
export function computeRolloutIsWeights(input: RolloutIsInput): { weights: Float64Array; metrics: Record<string, number> } {
  const { shape, logRatio, mask, level } = input;
  const threshold = input.threshold ?? 2.0;
  if (level !== 'token' && level !== 'sequence') throw invalid('rolloutIs', `invalid rollout_is ${String(level)}; must be "token" or "sequence"`);
  if (!(threshold > 0)) throw invalid('rolloutIsThreshold', `rollout_is_threshold must be positive, got ${threshold}`);
  const { batchSize, seqLen } = shape;
  const n = batchSize * seqLen;
  const seqLogRatio = level === 'sequence' ? rowMaskedSums(logRatio, mask, batchSize, seqLen) : new Float64Array(0);
  const raw = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const lr = level === 'token' ? at(logRatio, i) : at(seqLogRatio, Math.floor(i / seqLen));
    raw[i] = Math.exp(safe(lr)) * at(mask, i);
  }
  const metrics = isMetrics(raw, level === 'token' ? null : seqLogRatio, mask, shape, threshold);
  const weights = raw.map((w) => Math.min(w, threshold));
  if (input.batchNormalize === true) {
    let norm: number;
    if (level === 'token') norm = maskedMean(weights, mask);
    else {
      const seqWeights = maskedMeanRows(weights, mask, shape);
      const counts = rowCounts(mask, batchSize, seqLen);
      let s = 0;
      let rows = 0;
      for (let b = 0; b < batchSize; b++) {
        const valid = at(counts, b) > 0 ? 1 : 0;
        s += at(seqWeights, b) * valid;
        rows += valid;
      }
      norm = s / Math.max(rows, 1e-8);
    }
    if (norm > 1e-8) {
      for (let i = 0; i < n; i++) weights[i] = at(weights, i) / norm;
      metrics.rollout_is_batch_norm_factor = norm;
    } else metrics.rollout_is_batch_norm_factor = 1.0;
  }
  return { weights, metrics };
}

/** verl `compute_is_metrics` on the untruncated, masked weights. */
function isMetrics(w: Float64Array, seqLogRatio: Float64Array | null, mask: Mask, shape: Shape, threshold: number): Record<string, number> {
  const lower = 1 / threshold;
  const m: Record<string, number> = {};
  m.rollout_is_mean = maskedMean(w, mask);
  if (seqLogRatio !== null) {
    // Sequence level: extremes and threshold fractions from the unclamped log-ratios of every row.
    m.rollout_is_max = Math.exp(Math.min(maxOf(seqLogRatio), SAFETY));
    m.rollout_is_min = Math.exp(minOf(seqLogRatio));
    m.rollout_is_ratio_fraction_high = fraction(seqLogRatio, (x) => x > Math.log(threshold));
    m.rollout_is_ratio_fraction_low = fraction(seqLogRatio, (x) => x < Math.log(lower));
  } else {
    m.rollout_is_ratio_fraction_high = maskedMean(
      w.map((x) => (x > threshold ? 1 : 0)),
      mask,
    );
    m.rollout_is_ratio_fraction_low = maskedMean(
      w.map((x) => (x < lower ? 1 : 0)),
      mask,
    );
    m.rollout_is_max = maxOf(pick(w, (i) => at(mask, i) !== 0));
    m.rollout_is_min = minOf(pick(w, (i) => at(mask, i) !== 0));
  }
  const bounded = w.map((x) => Math.min(Math.max(x, lower), threshold));
  const boundedMean = maskedMean(bounded, mask);
  m.rollout_is_std =
    maskSum(mask) > 1
      ? Math.sqrt(
          Math.max(
            maskedMean(
              bounded.map((x) => x * x),
              mask,
            ) -
              boundedMean ** 2,
            0,
          ),
        )
      : 0;
  m.rollout_is_eff_sample_size =
    1 /
    maskedMean(
      bounded.map((x) => (x / (boundedMean + 1e-8)) ** 2),
      mask,
    );
  const seqMeans = maskedMeanRows(w, mask, shape);
  m.rollout_is_seq_mean = mean(seqMeans);
  m.rollout_is_seq_std = seqMeans.length > 1 ? stdUnbiased(seqMeans) : 0;
  m.rollout_is_seq_max = maxOf(seqMeans);
  m.rollout_is_seq_min = minOf(seqMeans);
  m.rollout_is_seq_max_deviation = maxOf(seqMeans.map((x) => Math.abs(x - 1)));
  m.rollout_is_seq_fraction_high = fraction(seqMeans, (x) => x > threshold);
  m.rollout_is_seq_fraction_low = fraction(seqMeans, (x) => x < lower);
  return m;
}
