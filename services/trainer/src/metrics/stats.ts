/** Mean, population standard deviation (numpy's default), min and max. */
export interface Summary {
  mean: number;
  std: number;
  min: number;
  max: number;
}

/** Arithmetic mean; NaN for no values. */
export function mean(values: ArrayLike<number>): number {
  if (values.length === 0) return Number.NaN;
  let s = 0;
  for (let i = 0; i < values.length; i++) s += values[i] as number;
  return s / values.length;
}

/** Summary of `values`; undefined for none, so callers omit the metric rather than log NaN. */
export function summarize(values: ArrayLike<number>): Summary | undefined {
  if (values.length === 0) return undefined;
  const m = mean(values);
  let sq = 0;
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < values.length; i++) {
    const v = values[i] as number;
    sq += (v - m) * (v - m);
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return { mean: m, std: Math.sqrt(sq / values.length), min, max };
}

/** Unbiased variance (torch.var's default); NaN for fewer than two values. */
export function unbiasedVariance(values: ArrayLike<number>): number {
  if (values.length < 2) return Number.NaN;
  const m = mean(values);
  let sq = 0;
  for (let i = 0; i < values.length; i++) sq += ((values[i] as number) - m) ** 2;
  return sq / (values.length - 1);
}

/** A metric-friendly number: booleans as 0/1, finite numbers as is, anything else undefined. */
export function numericValue(value: unknown): number | undefined {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  return undefined;
}
