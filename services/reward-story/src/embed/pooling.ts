/**
 * Sentence-transformers' default pooling, done in our code so any token-level
 * ONNX export works: mean of the token states weighted by the attention mask,
 * then L2 normalisation.
 */

/** Token states of one batch, row-major `[batch, seqLen, dim]`, as ONNX returns them. */
export interface TokenStates {
  data: Float32Array;
  batch: number;
  seqLen: number;
  dim: number;
}

/**
 * Mean of row `row`'s token vectors, each weighted by its mask value (0 for
 * padding, so padding never moves the result). All-zero mask → zero vector.
 * `mask` is row-major `[batch, seqLen]`.
 */
export function meanPool(states: TokenStates, mask: ArrayLike<number | bigint>, row: number): Float32Array {
  const { data, seqLen, dim } = states;
  const out = new Float32Array(dim);
  // Accumulate in float64: long sequences of float32 sums drift in the last digits.
  const sum = new Float64Array(dim);
  let weight = 0;
  for (let t = 0; t < seqLen; t++) {
    const m = Number(mask[row * seqLen + t]);
    if (m === 0) continue;
    weight += m;
    const base = (row * seqLen + t) * dim;
    for (let d = 0; d < dim; d++) sum[d]! += m * data[base + d]!;
  }
  // sentence-transformers clamps the denominator at 1e-9; an empty row stays zero.
  const denom = Math.max(weight, 1e-9);
  for (let d = 0; d < dim; d++) out[d] = sum[d]! / denom;
  return out;
}

/**
 * Scales to unit length in place and returns the same array. A vector of norm
 * below `epsilon` (nothing to point at) becomes all zeros instead of NaN or noise.
 */
export function l2Normalize(vec: Float32Array, epsilon = 1e-12): Float32Array {
  let sq = 0;
  for (let i = 0; i < vec.length; i++) sq += vec[i]! * vec[i]!;
  const norm = Math.sqrt(sq);
  if (norm < epsilon) return vec.fill(0);
  for (let i = 0; i < vec.length; i++) vec[i] = vec[i]! / norm;
  return vec;
}

/** Copies row `row` of a `[batch, dim]` output (an already pooled `sentence_embedding`). */
export function takeRow(data: Float32Array, dim: number, row: number): Float32Array {
  return data.slice(row * dim, (row + 1) * dim);
}
