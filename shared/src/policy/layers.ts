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

/** RoPE angle tables for float positions `[B, T]`: cos and sin, each `[B, 1, T, headDim / 2]`. */
export function ropeTables(positions: Tensor, headDim: number, theta: number): { cos: Tensor; sin: Tensor } {
  const half = headDim / 2;
  const invFreq = new Float32Array(half);
  for (let i = 0; i < half; i++) invFreq[i] = theta ** (-(2 * i) / headDim);
  const [b, t] = positions.shape as [number, number];
  const angles = positions.reshape([b, 1, t, 1]).mul(np.array(invFreq).reshape([1, 1, 1, half]));
  return { cos: np.cos(angles.ref), sin: np.sin(angles) };
}

/** Rotates `[B, H, T, headDim]` by the tables (rotate-half convention). */
export function applyRope(x: Tensor, cos: Tensor, sin: Tensor): Tensor {
  const half = (x.shape[3] as number) / 2;
  const x1 = x.ref.slice([], [], [], [0, half]);
  const x2 = x.slice([], [], [], [half]);
  const a = x1.ref.mul(cos.ref).sub(x2.ref.mul(sin.ref));
  const b = x2.mul(cos).add(x1.mul(sin));
  return np.concatenate([a, b], 3);
}

/** Turns a 0/1 key mask `[B, Tk]` into an additive bias `[B, 1, 1, Tk]`. */
export function keyBias(keyMask: Tensor): Tensor {
  const [b, tk] = keyMask.shape as [number, number];
  return keyMask.sub(1).mul(-MASKED).reshape([b, 1, 1, tk]);
}

/** Causal bias `[1, 1, T, T]`: query i sees keys j <= i. */
export function causalBias(t: number): Tensor {
  return np.tril(np.ones([t, t])).sub(1).mul(-MASKED).reshape([1, 1, t, t]);
}

/** Scaled dot-product attention: q `[B,H,Tq,d]`, k/v `[B,H,Tk,d]`, bias broadcastable to `[B,H,Tq,Tk]`. */
export function attention(q: Tensor, k: Tensor, v: Tensor, bias: Tensor): Tensor {
  const d = q.shape[3] as number;
  const scores = np.matmul(q, k.transpose([0, 1, 3, 2])).mul(1 / Math.sqrt(d)).add(bias);
  return np.matmul(nn.softmax(scores, -1), v);
}

/** `[B, T, H*d]` -> `[B, H, T, d]`. */
export function splitHeads(x: Tensor, nHeads: number): Tensor {
  const [b, t, dm] = x.shape as [number, number, number];
  return x.reshape([b, t, nHeads, dm / nHeads]).transpose([0, 2, 1, 3]);
}

/** `[B, H, T, d]` -> `[B, T, H*d]`. */
export function mergeHeads(x: Tensor): Tensor {
  const [b, h, t, d] = x.shape as [number, number, number, number];
  return x.transpose([0, 2, 1, 3]).reshape([b, t, h * d]);
}

/** SwiGLU MLP: `down(silu(gate(x)) * up(x))` with gate and up fused in one matrix. */
export function swiGlu(x: Tensor, gateUp: Tensor, down: Tensor): Tensor {
  const f = (gateUp.shape[1] as number) / 2;
  const gu = np.matmul(x, gateUp);
  const gate = gu.ref.slice([], [], [0, f]);
  const up = gu.slice([], [], [f]);
  return np.matmul(nn.silu(gate).mul(up), down);
}
