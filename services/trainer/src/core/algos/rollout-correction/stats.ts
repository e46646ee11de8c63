// Small statistics the rollout-correction metrics use, with torch's conventions
// (unbiased std, masked fills for max/min) so each metric reads like its verl line.
import { at } from '../types.ts';

/** Arithmetic mean (torch `.mean()`); NaN for an empty list. */
export const mean = (xs: ArrayLike<number>): number => {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += at(xs, i);
  return s / xs.length;
};

/** torch `.std()` (Bessel-corrected). */
export const stdUnbiased = (xs: ArrayLike<number>): number => {
  const m = mean(xs);
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += (at(xs, i) - m) ** 2;
  return Math.sqrt(s / (xs.length - 1));
};

/** Largest value (torch `.max()`); -inf for an empty list. */
export const maxOf = (xs: ArrayLike<number>): number => {
  let v = -Infinity;
  for (let i = 0; i < xs.length; i++) v = Math.max(v, at(xs, i));
  return v;
};

/** Smallest value (torch `.min()`); +inf for an empty list. */
export const minOf = (xs: ArrayLike<number>): number => {
  let v = Infinity;
  for (let i = 0; i < xs.length; i++) v = Math.min(v, at(xs, i));
  return v;
};

/** The entries of `xs` where `keep` is true (torch boolean indexing). */
export const pick = (xs: ArrayLike<number>, keep: (i: number) => boolean): number[] => {
  const out: number[] = [];
  for (let i = 0; i < xs.length; i++) if (keep(i)) out.push(at(xs, i));
  return out;
};

/** Mean of a 0/1 indicator over a list (torch `(cond).float().mean()`). */
export const fraction = (xs: ArrayLike<number>, cond: (x: number) => boolean): number => {
  let s = 0;
  for (let i = 0; i < xs.length; i++) if (cond(at(xs, i))) s++;
  return s / xs.length;
};

/** Per-row masked sum of a [batch, seqLen] matrix (verl masked_sum(axis=-1)). */
export function rowMaskedSums(values: ArrayLike<number>, mask: ArrayLike<number>, batchSize: number, seqLen: number): Float64Array {
  const out = new Float64Array(batchSize);
  for (let b = 0; b < batchSize; b++) {
    let s = 0;
    for (let t = 0; t < seqLen; t++) {
      const m = at(mask, b * seqLen + t);
      if (m !== 0) s += at(values, b * seqLen + t) * m;
    }
    out[b] = s;
  }
  return out;
}

/** Per-row mask sums (verl `mask.sum(dim=-1)`). */
export function rowCounts(mask: ArrayLike<number>, batchSize: number, seqLen: number): Float64Array {
  const out = new Float64Array(batchSize);
  for (let b = 0; b < batchSize; b++) for (let t = 0; t < seqLen; t++) out[b] = at(out, b) + at(mask, b * seqLen + t);
  return out;
}
