// Building blocks of the transformer as traced jax-js functions. Every function
// consumes its tensor arguments (jax-js move semantics); callers pass `.ref`
// for anything they still need afterwards.
import { nn, np, type Tensor } from './backend.ts';
import type { RopeScaling } from './model-config.ts';

/** Additive bias that removes a key from attention (exp underflows to exactly 0). */
const MASKED = -1e9;

/** RMSNorm over the last axis, as transformers' LlamaRMSNorm: `x * rsqrt(mean(x^2) + eps) * weight`. */
export function rmsNorm(x: Tensor, gain: Tensor, eps: number): Tensor {
  const meanSquare = np.mean(np.square(x.ref), -1, { keepdims: true });
  return x.mul(np.reciprocal(np.sqrt(meanSquare.add(eps)))).mul(gain);
}

/**
 * RoPE inverse frequencies `[headDim / 2]` as transformers computes them:
 * `theta^(-2i/headDim)`, then `ropeScaling` (`linear`: all divided by the
 * factor; `llama3`: wavelengths above `original / lowFreqFactor` divided,
 * below `original / highFreqFactor` kept, a smooth blend between).
 */
export function ropeInvFreq(headDim: number, theta: number, scaling: RopeScaling | null): Float32Array {
  const half = headDim / 2;
  // float32 as torch computes them (arange / dim, base ** that, reciprocal).
  const inv = Float32Array.from({ length: half }, (_, i) => 1 / Math.fround(theta ** Math.fround((2 * i) / headDim)));
  if (scaling === null) return inv;
  if (scaling.type === 'linear') return inv.map((f) => f / scaling.factor);
  const { factor, lowFreqFactor: low, highFreqFactor: high, originalMaxPositionEmbeddings: original } = scaling;
  const lowWavelen = original / low;
  const highWavelen = original / high;
  return inv.map((f) => {
    const wavelen = (2 * Math.PI) / f;
    if (wavelen < highWavelen) return f;
    if (wavelen > lowWavelen) return f / factor;
    const smooth = (original / wavelen - low) / (high - low);
    return ((1 - smooth) * f) / factor + smooth * f;
  });
}

/**
 * RoPE tables for float positions `[B, T]`, each `[B, T, 1, headDim]` (they
 * broadcast over the heads of `[B, T, H, headDim]`): `cos` repeated over both
 * halves, and `sin` negated on the first half, so that rotate-half is
 * `x * cos + swapHalves(x) * sin` with no slices or concatenation (a single
 * fused kernel; the sliced form cost 11 kernels per layer and step).
 */
export function ropeTables(positions: Tensor, invFreq: Float32Array): { cos: Tensor; sin: Tensor } {
  const half = invFreq.length;
  const headDim = 2 * half;
  const freq = new Float32Array(headDim);
  const sign = new Float32Array(headDim);
  for (let i = 0; i < half; i++) {
    freq[i] = freq[i + half] = invFreq[i] as number;
    sign[i] = -1;
    sign[i + half] = 1;
  }
  const [b, t] = positions.shape as [number, number];
  const angles = positions.reshape([b, t, 1, 1]).mul(np.array(freq).reshape([1, 1, 1, headDim]));
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

/**
 * Qwen3's per-head RMSNorm followed by RoPE, in one elementwise pass after the
 * reduction: with `s = rsqrt(mean(x²) + eps)` per head, `rope(x·s·g)` is
 * `s·(x·(g·cos) + swapHalves(x)·(swapHalves(g)·sin))`, so the gain goes into
 * the tables and the normalised `x` is never materialised (separately, the
 * norm's output was a buffer that RoPE read twice).
 */
export function rmsNormRope(x: Tensor, gain: Tensor, eps: number, cos: Tensor, sin: Tensor): Tensor {
  const scale = np.reciprocal(np.sqrt(np.mean(np.square(x.ref), -1, { keepdims: true }).add(eps)));
  return x.ref
    .mul(cos.mul(gain.ref))
    .add(swapHalves(x).mul(sin.mul(swapHalves(gain))))
    .mul(scale);
}

/** Turns a 0/1 key mask `[B, Tk]` into an additive bias `[B, 1, 1, 1, Tk]` (for scores `[B, KV, G, Tq, Tk]`). */
export function keyBias(keyMask: Tensor): Tensor {
  const [b, tk] = keyMask.shape as [number, number];
  return keyMask.sub(1).mul(-MASKED).reshape([b, 1, 1, 1, tk]);
}

/** Causal bias `[1, 1, 1, T, T]`: query i sees keys j <= i. */
export function causalBias(t: number): Tensor {
  return np
    .tril(np.ones([t, t]))
    .sub(1)
    .mul(-MASKED)
    .reshape([1, 1, 1, t, t]);
}

/**
 * `[B, T, KV, d]` -> `[B, T, H, d]`, key/value head `j` serving query heads
 * `j·G .. j·G + G - 1` (transformers' repeat_kv), as a matmul by a 0/1 matrix
 * `[H, KV]` (exact): its output is its own contiguous buffer, which a
 * broadcast view is not, and its backward is a plain matmul.
 */
function repeatKv(x: Tensor, nHeads: number): Tensor {
  const kv = x.shape[2] as number;
  const g = nHeads / kv;
  const select = new Float32Array(nHeads * kv);
  for (let h = 0; h < nHeads; h++) select[h * kv + Math.floor(h / g)] = 1;
  return np.matmul(np.array(select).reshape([1, 1, nHeads, kv]), x);
}

/**
 * Scaled dot-product attention with grouped queries: q `[B, Tq, H, d]`, k/v
 * `[B, Tk, KV, d]` where query head `h` reads key/value head `h / (H / KV)`
 * (transformers' repeat_kv order), bias broadcastable to `[B, KV, G, Tq, Tk]`
 * with G = H / KV; scale 1/sqrt(d). Returns `[B, Tq, H*d]`.
 *
 * The scores are a matmul of q `[B, KV, G, Tq, d]` by keys `[B, KV, 1, d, Tk]`
 * broadcast over the group. That is as fast as plain multi-head attention when
 * KV = 1 or G = 1, but with both above 1 its backward was 1.4x slower (102 vs
 * 74 ms per layer at batch 64, 4 heads of 32, 2 kv heads), so then keys and
 * values are first repeated to H heads (81 ms), unless `repeat` is false: a
 * decoding step (forward only, where the broadcast costs nothing) would copy
 * the whole cache to repeat it. The weighted sum of values is
 * batched over `[B, Tq, KV]` (weights `[B,Tq,KV,G,Tk]` by values
 * `[B,1,KV,Tk,d]`), so its output is already in `[B, Tq, H, d]` order and
 * merging heads is a free reshape. Batched over heads first instead, the output
 * projection read `[B, H, Tq, d]` through a transposed view, 6x slower than
 * from a contiguous buffer (27 of 31 ms per layer for log-probs at batch 64).
 */
export function attention(q: Tensor, k: Tensor, v: Tensor, bias: Tensor, repeat = true): Tensor {
  const [b, tq, h, d] = q.shape as [number, number, number, number];
  if (repeat && (k.shape[2] as number) > 1 && (k.shape[2] as number) < h) return attention(q, repeatKv(k, h), repeatKv(v, h), bias);
  const [, tk, kv] = k.shape as [number, number, number, number];
  const g = h / kv;
  const scores = np
    .matmul(q.reshape([b, tq, kv, g, d]).transpose([0, 2, 3, 1, 4]), k.transpose([0, 2, 3, 1]).reshape([b, kv, 1, d, tk]))
    .mul(1 / Math.sqrt(d))
    .add(bias);
  const weights = nn.softmax(scores, -1).transpose([0, 3, 1, 2, 4]);
  return np.matmul(weights, v.transpose([0, 2, 1, 3]).reshape([b, 1, kv, tk, d])).reshape([b, tq, h * d]);
}

/** `[B, T, H*d]` -> `[B, T, H, d]` (a reshape; attention transposes as it reads). */
export function splitHeads(x: Tensor, nHeads: number): Tensor {
  const [b, t, dm] = x.shape as [number, number, number];
  return x.reshape([b, t, nHeads, dm / nHeads]);
}

/** A torch Linear: `x @ W^T (+ b)` with `W` stored `[out, in]` (the transpose is a view). */
export function linear(x: Tensor, weight: Tensor, bias?: Tensor): Tensor {
  const y = np.matmul(x, weight.transpose());
  return bias === undefined ? y : y.add(bias);
}

/** SwiGLU MLP: `down(silu(gate(x)) * up(x))`, each projection with its optional bias. */
export function swiGlu(x: Tensor, gate: Tensor, up: Tensor, down: Tensor, bias?: { gate: Tensor; up: Tensor; down: Tensor }): Tensor {
  const g = linear(x.ref, gate, bias?.gate);
  const u = linear(x, up, bias?.up);
  return linear(nn.silu(g).mul(u), down, bias?.down);
}
