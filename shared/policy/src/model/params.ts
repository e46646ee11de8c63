import { AppError, ErrorCode, createRng, type Rng } from '@rl/service-kit/core';
import { np, type Tensor } from './backend.ts';
import { biases, hasQkNorm, type ModelConfig } from './model-config.ts';

/** A float32 tensor in host memory (row-major). */
export interface HostTensor {
  shape: number[];
  data: Float32Array<ArrayBuffer>;
}

/** Parameters on the device, by Hugging Face tensor name. */
export type Params = Record<string, Tensor>;

/** Parameters in host memory, by name. */
export type HostParams = Record<string, HostTensor>;

/**
 * Every parameter's Hugging Face name and shape, in a fixed order. Linear
 * weights are `[out, in]` as in torch (the forward computes `x @ W^T`).
 */
export function paramShapes(config: ModelConfig): Array<[name: string, shape: number[]]> {
  const { vocabSize: V, dModel: D, dFF: F, headDim: d } = config;
  const q = config.nHeads * d;
  const kv = config.nKvHeads * d;
  const bias = biases(config);
  const out: Array<[string, number[]]> = [['model.embed_tokens.weight', [V, D]]];
  const linear = (name: string, outDim: number, inDim: number, withBias: boolean) => {
    out.push([`${name}.weight`, [outDim, inDim]]);
    if (withBias) out.push([`${name}.bias`, [outDim]]);
  };
  for (let i = 0; i < config.nLayers; i++) {
    const l = `model.layers.${i}`;
    out.push([`${l}.input_layernorm.weight`, [D]]);
    linear(`${l}.self_attn.q_proj`, q, D, bias.qkv);
    linear(`${l}.self_attn.k_proj`, kv, D, bias.qkv);
    linear(`${l}.self_attn.v_proj`, kv, D, bias.qkv);
    linear(`${l}.self_attn.o_proj`, D, q, bias.o);
    if (hasQkNorm(config)) out.push([`${l}.self_attn.q_norm.weight`, [d]], [`${l}.self_attn.k_norm.weight`, [d]]);
    out.push([`${l}.post_attention_layernorm.weight`, [D]]);
    linear(`${l}.mlp.gate_proj`, F, D, bias.mlp);
    linear(`${l}.mlp.up_proj`, F, D, bias.mlp);
    linear(`${l}.mlp.down_proj`, D, F, bias.mlp);
  }
  out.push(['model.norm.weight', [D]]);
  if (!config.tieEmbeddings) out.push(['lm_head.weight', [V, D]]);
  if (config.valueHead) out.push(['score.weight', [1, D]], ['score.bias', [1]]);
  return out;
}

/** One standard normal draw (Box-Muller). */
export function gaussian(rng: Rng): number {
  // Box-Muller; 1 - u keeps the log argument in (0, 1].
  const u = 1 - rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
}

/** Norm gains (RMSNorm weights), which start at 1. */
function isNormWeight(name: string): boolean {
  return name.endsWith('norm.weight');
}

/**
 * GPT-2 style initialisation from a seed: N(0, 0.02) weights, residual output
 * projections (o_proj, down_proj) scaled by 1/sqrt(2 * nLayers), biases 0,
 * norm gains 1. Same seed, same bytes.
 */
export function initHostParams(config: ModelConfig, seed: number): HostParams {
  const rng = createRng(seed);
  const residualStd = 0.02 / Math.sqrt(2 * config.nLayers);
  const out: HostParams = {};
  for (const [name, shape] of paramShapes(config)) {
    const size = shape.reduce((a, b) => a * b, 1);
    const data = new Float32Array(size);
    if (isNormWeight(name)) data.fill(1);
    else if (!name.endsWith('.bias')) {
      const std = name.endsWith('o_proj.weight') || name.endsWith('down_proj.weight') ? residualStd : 0.02;
      for (let i = 0; i < size; i++) data[i] = gaussian(rng) * std;
    }
    out[name] = { shape, data };
  }
  return out;
}

/**
 * Checks that `host` holds exactly the parameters `config` needs, with the
 * right shapes; errors name the tensor, and `source` (a file) when given.
 */
export function checkHostParams(config: ModelConfig, host: HostParams, source?: string): void {
  const where = source === undefined ? 'weights' : source;
  const expected = paramShapes(config);
  const names = new Set(expected.map(([n]) => n));
  for (const name of Object.keys(host)) {
    if (!names.has(name)) throw new AppError(ErrorCode.ValidationFailed, `${where}: unexpected tensor ${name} for ${describe(config)}`);
  }
  for (const [name, shape] of expected) {
    const t = host[name];
    if (t === undefined) throw new AppError(ErrorCode.ValidationFailed, `${where}: missing tensor ${name}`);
    if (t.shape.join(',') !== shape.join(',')) {
      throw new AppError(ErrorCode.ValidationFailed, `${where}: tensor ${name} has shape [${t.shape}], expected [${shape}]`);
    }
    const size = shape.reduce((a, b) => a * b, 1);
    if (t.data.length !== size) {
      throw new AppError(ErrorCode.ValidationFailed, `${where}: tensor ${name} holds ${t.data.length} values, expected ${size}`);
    }
  }
}

/** A short description of what decides the tensor set, for error messages. */
function describe(config: ModelConfig): string {
  const flags = [
    config.attentionBias ? 'attentionBias' : '',
    config.mlpBias ? 'mlpBias' : '',
    config.tieEmbeddings ? 'tied embeddings' : 'untied lm_head',
    config.valueHead ? 'value head' : '',
  ].filter((f) => f !== '');
  return `${config.architecture} (${flags.join(', ')})`;
}

/** Uploads host parameters to the device. */
export function toDevice(host: HostParams): Params {
  const out: Params = {};
  for (const [name, t] of Object.entries(host)) out[name] = np.array(t.data).reshape(t.shape);
  return out;
}

/** Copies device parameters back to host memory (the arrays stay alive). */
export async function toHost(params: Params): Promise<HostParams> {
  const out: HostParams = {};
  for (const [name, t] of Object.entries(params)) {
    const shape = [...t.shape];
    const data = await t.ref.data();
    out[name] = { shape, data: data instanceof Float32Array ? Float32Array.from(data) : Float32Array.from(data, Number) };
  }
  return out;
}

/** Reads a parameter inside traced code as a new reference (the caller consumes it). */
export function param(p: Params, name: string): Tensor {
  const t = p[name];
  if (t === undefined) throw new AppError(ErrorCode.Internal, `missing parameter ${name}`);
  return t.ref;
}
