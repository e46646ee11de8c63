// The decoder-only transformer as pure traced functions over a parameter dict:
// a full-sequence pass (prefill, no-cache decoding, teacher forcing, training)
// and a one-token decode step against a fixed-capacity KV cache.
import { np, type Tensor } from './backend.ts';
import { applyRope, attention, causalBias, keyBias, linear, rmsNorm, rmsNormRope, ropeInvFreq, ropeTables, splitHeads, swiGlu } from './layers.ts';
import { biases, hasQkNorm, type ModelConfig } from './model-config.ts';
import { param, type Params } from './params.ts';

/** Per-layer keys and values, each `[B, nKvHeads, T, headDim]` (keys already rotated). */
export type KvCache = { k: Tensor[]; v: Tensor[] };

// A row gather (its gradient is a scatter-add). The one-hot matmul it replaces
// cost 2·V·D FLOPs per token, and in training jax-js fused the whole layer-0
// RMSNorm backward into that product's reduction, recomputing it for every
// vocabulary entry: 62% of a batch-64 step (3.1 of 5.0 s at V=600).
function embed(p: Params, ids: Tensor): Tensor {
  return np.take(param(p, 'model.embed_tokens.weight'), ids, 0);
}

/** Final norm `[..., D]` (model.norm): what the output head and a value head read. */
export function finalNorm(cfg: ModelConfig, p: Params, h: Tensor): Tensor {
  return rmsNorm(h, param(p, 'model.norm.weight'), cfg.normEps);
}

/** Final norm and output head: `[..., D]` -> `[..., V]` logits. */
export function head(cfg: ModelConfig, p: Params, h: Tensor): Tensor {
  return linear(finalNorm(cfg, p, h), param(p, cfg.tieEmbeddings ? 'model.embed_tokens.weight' : 'lm_head.weight'));
}

/** `prefix.weight` through a Linear, with `prefix.bias` when the architecture has one there. */
function project(p: Params, prefix: string, x: Tensor, withBias: boolean): Tensor {
  return linear(x, param(p, `${prefix}.weight`), withBias ? param(p, `${prefix}.bias`) : undefined);
}

/** RoPE inverse frequencies of `cfg` (its head size, base and scaling). */
function invFreq(cfg: ModelConfig): Float32Array {
  return ropeInvFreq(cfg.headDim, cfg.ropeTheta, cfg.ropeScaling);
}

/**
 * Layer `i`'s attention inputs from the residual stream `[B, T, D]`: q
 * `[B, T, H, d]`, k and v `[B, T, KV, d]`, q and k normalised per head (Qwen3)
 * and rotated.
 */
function qkv(cfg: ModelConfig, p: Params, i: number, x: Tensor, cos: Tensor, sin: Tensor): [Tensor, Tensor, Tensor] {
  const a = `model.layers.${i}.self_attn`;
  const bias = biases(cfg).qkv;
  const h = rmsNorm(x, param(p, `model.layers.${i}.input_layernorm.weight`), cfg.normEps);
  const q = splitHeads(project(p, `${a}.q_proj`, h.ref, bias), cfg.nHeads);
  const k = splitHeads(project(p, `${a}.k_proj`, h.ref, bias), cfg.nKvHeads);
  const v = splitHeads(project(p, `${a}.v_proj`, h, bias), cfg.nKvHeads);
  if (!hasQkNorm(cfg)) return [applyRope(q, cos.ref, sin.ref), applyRope(k, cos, sin), v];
  const eps = cfg.normEps;
  return [rmsNormRope(q, param(p, `${a}.q_norm.weight`), eps, cos.ref, sin.ref), rmsNormRope(k, param(p, `${a}.k_norm.weight`), eps, cos, sin), v];
}

function finishLayer(cfg: ModelConfig, p: Params, i: number, x: Tensor, attended: Tensor): Tensor {
  const l = `model.layers.${i}`;
  const y = x.add(project(p, `${l}.self_attn.o_proj`, attended, biases(cfg).o));
  const h = rmsNorm(y.ref, param(p, `${l}.post_attention_layernorm.weight`), cfg.normEps);
  const m = `${l}.mlp`;
  const mlpBias = biases(cfg).mlp
    ? { gate: param(p, `${m}.gate_proj.bias`), up: param(p, `${m}.up_proj.bias`), down: param(p, `${m}.down_proj.bias`) }
    : undefined;
  return y.add(swiGlu(h, param(p, `${m}.gate_proj.weight`), param(p, `${m}.up_proj.weight`), param(p, `${m}.down_proj.weight`), mlpBias));
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
  const { cos, sin } = ropeTables(positions, invFreq(cfg));
  const bias = keyBias(keyMask).add(causalBias(t));
  let x = embed(p, ids);
  const cache: KvCache = { k: [], v: [] };
  for (let i = 0; i < cfg.nLayers; i++) {
    const [q, k, v] = qkv(cfg, p, i, x.ref, cos.ref, sin.ref);
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
 * layer's cache `[B, KV, C, d]` and attends over the keys `keyMask [B, C]` allows.
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
  const { cos, sin } = ropeTables(positions.reshape([b, 1]), invFreq(cfg));
  const bias = keyBias(keyMask);
  // A select (not old * (1 - onehot) + new * onehot, the same values) over the cache: the
  // step's largest kernels are these writes, and the select is cheaper per element.
  const write = column.reshape([1, 1, c, 1]).greater(0);
  let x = embed(p, tokens.reshape([b, 1]));
  const next: KvCache = { k: [], v: [] };
  for (let i = 0; i < cfg.nLayers; i++) {
    const [q, kNew, v0] = qkv(cfg, p, i, x.ref, cos.ref, sin.ref);
    const k = np.where(write.ref, materialize(kNew).transpose([0, 2, 1, 3]), cache.k[i] as Tensor);
    const v = np.where(write.ref, v0.transpose([0, 2, 1, 3]), cache.v[i] as Tensor);
    next.k.push(k.ref);
    next.v.push(v.ref);
    x = finishLayer(cfg, p, i, x, attention(q, k.transpose([0, 2, 1, 3]), v.transpose([0, 2, 1, 3]), bias.ref, false));
  }
  cos.dispose();
  sin.dispose();
  bias.dispose();
  write.dispose();
  return { logits: head(cfg, p, x.reshape([b, cfg.dModel])), cache: next };
}
