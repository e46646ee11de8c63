/** Small numeric helpers of the reward formulas. */

/** Cosine similarity; 0 when either vector is all zeros (an embedding of text the model has no features for). */
export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new RangeError(`vectors differ in length: ${a.length} vs ${b.length}`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  if (na === 0 || nb === 0) return 0;
  // Rounding can push |cos| a hair past 1 for identical vectors.
  return Math.max(-1, Math.min(1, dot / Math.sqrt(na * nb)));
}

/** Clamps into [0, 1]. */
export function clamp01(x: number): number {
  return Math.min(1, Math.max(0, x));
}

/** Logistic function 1 / (1 + e^-x). */
export function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

/** Component-wise mean of equal-length vectors (their centroid); undefined for none. */
export function centroid(vectors: ReadonlyArray<Float32Array>): Float32Array | undefined {
  const first = vectors[0];
  if (first === undefined) return undefined;
  const out = new Float32Array(first.length);
  for (const v of vectors) for (let i = 0; i < out.length; i++) out[i]! += v[i]!;
  for (let i = 0; i < out.length; i++) out[i]! /= vectors.length;
  return out;
}

/** Mean of numbers; undefined for none. */
export function mean(xs: ReadonlyArray<number>): number | undefined {
  if (xs.length === 0) return undefined;
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

/**
 * Maps a similarity onto a penalty: 0 up to `threshold`, rising linearly to 1 at
 * similarity 1. Used for "near-duplicate" checks, where only very high
 * similarity means a copy.
 */
export function excessOver(similarity: number, threshold: number): number {
  if (threshold >= 1) return similarity >= 1 ? 1 : 0;
  return clamp01((similarity - threshold) / (1 - threshold));
}
