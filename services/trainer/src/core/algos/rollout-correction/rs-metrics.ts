import { maskedMean, maskedMeanRows, maskSum } from '../masked.ts';
import { fraction, maxOf, mean, minOf, pick, rowCounts, stdUnbiased } from './stats.ts';
import { at, type Mask, type Shape } from '../types.ts';

/** Inputs of {@link computeRsMetrics} (verl `compute_rs_metrics` arguments). */
export interface RsMetricsInput {
  readonly option: string;
  /** Per-token statistic (a row's value repeated on every token for sequence options). */
  readonly stat: ArrayLike<number>;
  readonly mask: Mask;
  readonly shape: Shape;
  readonly level: 'token' | 'sequence';
  /** One value per row for sequence options. */
  readonly perSequence: ArrayLike<number> | null;
  readonly upper: number;
  readonly lower: number;
  readonly applyLower: boolean;
}

/** verl `compute_rs_metrics`: rollout_rs_<option>_{mean,max,min,fraction_high,fraction_low,std,seq_*}. */
export function computeRsMetrics(input: RsMetricsInput): Record<string, number> {
  const { option, stat, mask, shape, level, upper, lower, applyLower } = input;
  const p = `rollout_rs_${option}`;
  const seqValues = input.perSequence ?? maskedMeanRows(stat, mask, shape);
  const counts = rowCounts(mask, shape.batchSize, shape.seqLen);
  const valid = pick(seqValues, (b) => at(counts, b) > 0);
  const m: Record<string, number> = {};
  m[`${p}_mean`] = maskedMean(stat, mask);
  const tokens = pick(stat, (i) => at(mask, i) !== 0);
  const bySeq = level === 'sequence' && valid.length > 0;
  m[`${p}_max`] = bySeq ? maxOf(valid) : maxOf(tokens);
  m[`${p}_min`] = bySeq ? minOf(valid) : minOf(tokens);
  if (bySeq) {
    m[`${p}_fraction_high`] = fraction(valid, (x) => x > upper);
    m[`${p}_fraction_low`] = applyLower ? fraction(valid, (x) => x < lower) : 0;
  } else {
    m[`${p}_fraction_high`] = maskedMean(
      Array.from(stat, (x) => (x > upper ? 1 : 0)),
      mask,
    );
    m[`${p}_fraction_low`] = applyLower
      ? maskedMean(
          Array.from(stat, (x) => (x < lower ? 1 : 0)),
          mask,
        )
      : 0;
  }
  if (maskSum(mask) > 1) {
    const lo = applyLower ? lower : 0;
    const bounded = Array.from(stat, (x) => Math.min(Math.max(x, lo), upper));
    const bm = maskedMean(bounded, mask);
    m[`${p}_std`] = Math.sqrt(
      Math.max(
        maskedMean(
          bounded.map((x) => x * x),
          mask,
        ) -
          bm * bm,
        0,
      ),
    );
  } else m[`${p}_std`] = 0;
  if (valid.length > 0) {
    m[`${p}_seq_mean`] = mean(valid);
    m[`${p}_seq_std`] = valid.length > 1 ? stdUnbiased(valid) : 0;
    m[`${p}_seq_max`] = maxOf(valid);
    m[`${p}_seq_min`] = minOf(valid);
    m[`${p}_seq_max_deviation`] = maxOf(valid.map(Math.abs));
    m[`${p}_seq_fraction_high`] = fraction(valid, (x) => x > upper);
    if (applyLower) m[`${p}_seq_fraction_low`] = fraction(valid, (x) => x < lower);
  } else {
    for (const k of ['seq_mean', 'seq_std', 'seq_max', 'seq_min', 'seq_max_deviation', 'seq_fraction_high', 'seq_fraction_low']) m[`${p}_${k}`] = 0;
  }
  return m;
}
