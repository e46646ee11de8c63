import { at, invalid, type Floats, type Mask, type Shape } from './types.ts';

// verl torch_functional adds this to every masked denominator and to the whitening variance.
const DENOM_EPS = 1e-8;

/** Sum of the mask itself (verl `mask.sum()`). */
export function maskSum(mask: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < mask.length; i++) s += at(mask, i);
  return s;
}

/**
 * verl `masked_sum(values, mask)`: sum of values * mask over every element. Entries whose mask is 0
 * are replaced by 0 first, so a NaN or Infinity outside the mask does not poison the sum.
 */
export function maskedSum(values: ArrayLike<number>, mask: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < values.length; i++) {
    const m = at(mask, i);
    if (m !== 0) s += at(values, i) * m;
  }
  return s;
}

/** verl `masked_mean(values, mask)`: masked_sum / (mask.sum() + 1e-8); an all-zero mask gives 0. */
export function maskedMean(values: ArrayLike<number>, mask: ArrayLike<number>): number {
  return maskedSum(values, mask) / (maskSum(mask) + DENOM_EPS);
}

/** verl `masked_mean(values, mask, axis=-1)`: one masked mean per row of a [batch, seqLen] matrix. */
export function maskedMeanRows(values: ArrayLike<number>, mask: ArrayLike<number>, shape: Shape): Float64Array {
  const out = new Float64Array(shape.batchSize);
  for (let b = 0; b < shape.batchSize; b++) {
    let s = 0;
    let n = 0;
    for (let t = 0; t < shape.seqLen; t++) {
      const i = b * shape.seqLen + t;
      const m = at(mask, i);
      n += m;
      if (m !== 0) s += at(values, i) * m;
    }
    out[b] = s / (n + DENOM_EPS);
  }
  return out;
}

/**
 * verl `masked_var(values, mask, unbiased)`: masked mean of squared deviations, times the Bessel
 * factor n / (n - 1) with n = mask.sum() when unbiased. Like verl it refuses n == 0 and n == 1.
 */
export function maskedVar(values: ArrayLike<number>, mask: ArrayLike<number>, unbiased = true): number {
  const mean = maskedMean(values, mask);
  let s = 0;
  for (let i = 0; i < values.length; i++) {
    const m = at(mask, i);
    if (m !== 0) {
      const c = at(values, i) - mean;
      s += c * c * m;
    }
  }
  const n = maskSum(mask);
  let variance = s / (n + DENOM_EPS);
  if (unbiased) {
    if (n === 0) throw invalid('responseMask', 'at least one element in the mask has to be 1 (masked_var)');
    if (n === 1) throw invalid('responseMask', 'the mask sums to one, the unbiased variance divides by zero (masked_var)');
    variance *= n / (n - 1);
  }
  return variance;
}

/**
 * verl `masked_whiten(values, mask, shift_mean)`: (values - mean) / sqrt(var + 1e-8) with the masked
 * mean and unbiased masked variance. Every element is transformed, including masked ones; with
 * shift_mean false the mean is added back.
 */
export function maskedWhiten(values: Floats, mask: Mask, shiftMean = true): Float32Array {
  const mean = maskedMean(values, mask);
  const variance = maskedVar(values, mask, true);
  const scale = 1 / Math.sqrt(variance + DENOM_EPS);
  const out = new Float32Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const w = (at(values, i) - mean) * scale;
    out[i] = shiftMean ? w : w + mean;
  }
  return out;
}
