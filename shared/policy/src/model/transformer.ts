// The decoder-only transformer as pure traced functions over a parameter dict:
// a full-sequence pass (prefill, no-cache decoding, teacher forcing, training)
// and a one-token decode step against a fixed-capacity KV cache.
import { np, type Tensor } from './backend.ts';
import { applyRope, attention, causalBias, keyBias, rmsNorm, ropeTables, splitHeads, swiGlu } from './layers.ts';
import { headDim, type ModelConfig } from './model-config.ts';
import { param, type Params } from './params.ts';

/** Per-layer keys and values, each `[B, H, T, headDim]` (keys already rotated). */
export type KvCache = { k: Tensor[]; v: Tensor[] };

// A row gather (its gradient is a scatter-add). The one-hot matmul it replaces
// cost 2·V·D FLOPs per token, and in training jax-js fused the whole layer-0
// RMSNorm backward into that product's reduction, recomputing it for every
// vocabulary entry: 62% of a batch-64 step (3.1 of 5.0 s at V=600).
function embed(p: Params, ids: Tensor): Tensor {
  return np.take(param(p, 'embed'), ids, 0);
}

/** Final norm and output head: `[..., D]` -> `[..., V]` logits. */
export function head(cfg: ModelConfig, p: Params, h: Tensor): Tensor {
  const x = rmsNorm(h, param(p, 'final_norm'), cfg.normEps);
  return np.matmul(x, cfg.tieEmbeddings ? param(p, 'embed').transpose() : param(p, 'lm_head'));
}

// Projections use column slices of the fused weight (views) rather than
// slicing the [.., 3D] product, which jax-js would copy into three buffers.
function qkv(cfg: ModelConfig, p: Params, i: number, x: Tensor): [Tensor, Tensor, Tensor] {
  const h = rmsNorm(x, param(p, `layers.${i}.attn_norm`), cfg.normEps);
  const w = param(p, `layers.${i}.attn.qkv`);
  const d = cfg.dModel;
  const project = (from: number, weight: Tensor, input: Tensor) => splitHeads(np.matmul(input, weight.slice([], [from, from + d])), cfg.nHeads);
  return [project(0, w.ref, h.ref), project(d, w.ref, h.ref), project(2 * d, w, h)];
}

function finishLayer(cfg: ModelConfig, p: Params, i: number, x: Tensor, attended: Tensor): Tensor {
  const y = x.add(np.matmul(attended, param(p, `layers.${i}.attn.out`)));
  const h = rmsNorm(y.ref, param(p, `layers.${i}.mlp_norm`), cfg.normEps);
  return y.add(swiGlu(h, param(p, `layers.${i}.mlp.gate_up`), param(p, `layers.${i}.mlp.down`)));
}

/**
 * Full causal pass over ids `[B, T]` with float positions `[B, T]` and a 0/1
 * key mask `[B, T]` (0 for padding). Returns the final hidden states
 * `[B, T, D]` (before the final norm) and, when asked, each layer's keys and values.
 */
export function forwardSequence(
  cfg: ModelConfig,
  p: Params,
  ids: Tensor,
  positions: Tensor,
  keyMask: Tensor,
  collectKv: boolean,
): { hidden: Tensor; cache: KvCache } {
  const t = ids.shape[1] as number;
  const { cos, sin } = ropeTables(positions, headDim(cfg), cfg.ropeTheta);
  const bias = keyBias(keyMask).add(causalBias(t));
  let x = embed(p, ids);
  const cache: KvCache = { k: [], v: [] };
  for (let i = 0; i < cfg.nLayers; i++) {
    const [q0, k0, v] = qkv(cfg, p, i, x.ref);
    const q = applyRope(q0, cos.ref, sin.ref);
    const k = applyRope(k0, cos.ref, sin.ref);
    if (collectKv) {
      cache.k.push(k.ref.transpose([0, 2, 1, 3]));
      cache.v.push(v.ref.transpose([0, 2, 1, 3]));
    }
    x = finishLayer(cfg, p, i, x, attention(q, k, v, bias.ref));
  }
  cos.dispose();
  sin.dispose();
  bias.dispose();
  return { hidden: x, cache };
}

// jax-js fuses an elementwise result into its single consumer. Fused into the
// cache write, the new key's rotation was recomputed for every cache column
// (the select evaluates both sides); a gather's output is always its own buffer.
function materialize(x: Tensor): Tensor {
  return np.take(x, np.array(Int32Array.from({ length: x.shape[1] as number }, (_, i) => i)), 1);
}

/**
 * One decoding step for tokens `[B]` at float positions `[B]`: writes this
 * token's keys and values into column `column` (a one-hot `[C]`) of every
 * layer's cache `[B, H, C, d]` and attends over the keys `keyMask [B, C]` allows.
 * Returns logits `[B, V]` and the updated cache.
 */
export function decodeStep(
  cfg: ModelConfig,
  p: Params,
  cache: KvCache,
  tokens: Tensor,
  positions: Tensor,
  keyMask: Tensor,
  column: Tensor,
): { logits: Tensor; cache: KvCache } {
  const b = tokens.shape[0] as number;
  const c = column.shape[0] as number;
  const { cos, sin } = ropeTables(positions.reshape([b, 1]), headDim(cfg), cfg.ropeTheta);
  const bias = keyBias(keyMask);
  // A select (not old * (1 - onehot) + new * onehot, the same values) over the cache: the
  // step's largest kernels are these writes, and the select is cheaper per element.
  const write = column.reshape([1, 1, c, 1]).greater(0);
  let x = embed(p, tokens.reshape([b, 1]));
  const next: KvCache = { k: [], v: [] };
  for (let i = 0; i < cfg.nLayers; i++) {
    const [q0, k0, v0] = qkv(cfg, p, i, x.ref);
    const q = applyRope(q0, cos.ref, sin.ref);
    const kNew = applyRope(k0, cos.ref, sin.ref);
    const k = np.where(write.ref, materialize(kNew).transpose([0, 2, 1, 3]), cache.k[i] as Tensor);
    const v = np.where(write.ref, v0.transpose([0, 2, 1, 3]), cache.v[i] as Tensor);
    next.k.push(k.ref);
    next.v.push(v.ref);
    x = finishLayer(cfg, p, i, x, attention(q, k.transpose([0, 2, 1, 3]), v.transpose([0, 2, 1, 3]), bias.ref));
  }
  cos.dispose();
  sin.dispose();
  bias.dispose();
  write.dispose();
  return { logits: head(cfg, p, x.reshape([b, cfg.dModel])), cache: next };
}
