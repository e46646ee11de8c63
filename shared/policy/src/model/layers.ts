// Building blocks of the transformer as traced jax-js functions. Every function
// consumes its tensor arguments (jax-js move semantics); callers pass `.ref`
// for anything they still need afterwards.
import { nn, np, type Tensor } from './backend.ts';

/** Additive bias that removes a key from attention (exp underflows to exactly 0). */
const MASKED = -1e9;

/** RMSNorm over the last axis. */
export function rmsNorm(x: Tensor, gain: Tensor, eps: number): Tensor {
  const meanSquare = np.mean(np.square(x.ref), -1, { keepdims: true });
  return x.mul(np.reciprocal(np.sqrt(meanSquare.add(eps)))).mul(gain);
}

/**
 * RoPE tables for float positions `[B, T]`, each `[B, T, 1, headDim]` (they
 * broadcast over the heads of `[B, T, H, headDim]`): `cos` repeated over both
 * halves, and `sin` negated on the first half, so that rotate-half is
 * `x * cos + swapHalves(x) * sin` with no slices or concatenation (a single
 * fused kernel; the sliced form cost 11 kernels per layer and step).
 */
export function ropeTables(positions: Tensor, headDim: number, theta: number): { cos: Tensor; sin: Tensor } {
  const half = headDim / 2;
  const invFreq = new Float32Array(headDim);
  const sign = new Float32Array(headDim);
  for (let i = 0; i < half; i++) {
    invFreq[i] = invFreq[i + half] = theta ** (-(2 * i) / headDim);
    sign[i] = -1;
    sign[i + half] = 1;
  }
  const [b, t] = positions.shape as [number, number];
  const angles = positions.reshape([b, t, 1, 1]).mul(np.array(invFreq).reshape([1, 1, 1, headDim]));
  return { cos: np.cos(angles.ref), sin: np.sin(angles).mul(np.array(sign).reshape([1, 1, 1, headDim])) };
}

/** `[..., headDim]` -> the same with its two halves swapped (a view: reshape and flip). */
function swapHalves(x: Tensor): Tensor {
  const shape = x.shape as number[];
  const d = shape[shape.length - 1] as number;
  return np.flip(x.reshape([...shape.slice(0, -1), 2, d / 2]), -2).reshape(shape);
}

/**
 * Rotates `[B, T, H, headDim]` by the tables (rotate-half convention): the first
 * half becomes `x1·cos − x2·sin`, the second `x2·cos + x1·sin`, bit for bit.
 */
export function applyRope(x: Tensor, cos: Tensor, sin: Tensor): Tensor {
  return x.ref.mul(cos).add(swapHalves(x).mul(sin));
}

/** Turns a 0/1 key mask `[B, Tk]` into an additive bias `[B, 1, 1, Tk]`. */
export function keyBias(keyMask: Tensor): Tensor {
  const [b, tk] = keyMask.shape as [number, number];
  return keyMask.sub(1).mul(-MASKED).reshape([b, 1, 1, tk]);
}

/** Causal bias `[1, 1, T, T]`: query i sees keys j <= i. */
export function causalBias(t: number): Tensor {
  return np
    .tril(np.ones([t, t]))
    .sub(1)
    .mul(-MASKED)
    .reshape([1, 1, t, t]);
}

/**
 * Scaled dot-product attention over heads laid out `[B, T, H, d]` (q `[B,Tq,H,d]`,
 * k/v `[B,Tk,H,d]`, bias broadcastable to `[B,H,Tq,Tk]`); returns `[B, Tq, H*d]`.
 * The weighted sum of values is a matmul batched over `[B, Tq, H]` (weights
 * `[B,Tq,H,1,Tk]` by values `[B,1,H,Tk,d]`), so its output is already in
 * `[B, Tq, H, d]` order and merging heads is a free reshape. Batched over
 * `[B, H]` instead, the output projection read `[B, H, Tq, d]` through a
 * transposed view, 6x slower than from a contiguous buffer (27 of 31 ms per
 * layer for log-probs at batch 64).
 */
export function attention(q: Tensor, k: Tensor, v: Tensor, bias: Tensor): Tensor {
  const [b, tq, h, d] = q.shape as [number, number, number, number];
  const tk = k.shape[1] as number;
  const scores = np
    .matmul(q.transpose([0, 2, 1, 3]), k.transpose([0, 2, 3, 1]))
    .mul(1 / Math.sqrt(d))
    .add(bias);
  const weights = nn.softmax(scores, -1).transpose([0, 2, 1, 3]).reshape([b, tq, h, 1, tk]);
  return np.matmul(weights, v.transpose([0, 2, 1, 3]).reshape([b, 1, h, tk, d])).reshape([b, tq, h * d]);
}

/** `[B, T, H*d]` -> `[B, T, H, d]` (a reshape; attention transposes as it reads). */
export function splitHeads(x: Tensor, nHeads: number): Tensor {
  const [b, t, dm] = x.shape as [number, number, number];
  return x.reshape([b, t, nHeads, dm / nHeads]);
}

/**
 * SwiGLU MLP: `down(silu(gate(x)) * up(x))`. Gate and up are stored fused
 * `[D, 2F]`; slicing the weight (a view) rather than the `[.., 2F]` product
 * saves two copies of `[.., F]` forward and a concatenation backward.
 */
export function swiGlu(x: Tensor, gateUp: Tensor, down: Tensor): Tensor {
  const f = (gateUp.shape[1] as number) / 2;
  const gate = np.matmul(x.ref, gateUp.ref.slice([], [0, f]));
  const up = np.matmul(x, gateUp.slice([], [f]));
  return np.matmul(nn.silu(gate).mul(up), down);
}
