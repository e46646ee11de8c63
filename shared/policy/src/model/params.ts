import { AppError, ErrorCode, createRng, type Rng } from '@rl/service-kit/core';
import { np, type Tensor } from './backend.ts';
import type { ModelConfig } from './model-config.ts';

/** A float32 tensor in host memory (row-major). */
export interface HostTensor {
  shape: number[];
  data: Float32Array<ArrayBuffer>;
}

/** Parameters on the device, by name (the names used in the safetensors file). */
export type Params = Record<string, Tensor>;

/** Parameters in host memory, by name. */
export type HostParams = Record<string, HostTensor>;

/**
 * Every parameter's name and shape, in a fixed order. Matrices are stored
 * `[in, out]` (the forward computes `x @ W`); q, k and v are fused as are the
 * SwiGLU gate and up projections.
 */
export function paramShapes(config: ModelConfig): Array<[name: string, shape: number[]]> {
  const { vocabSize: V, dModel: D, dFF: F } = config;
  const out: Array<[string, number[]]> = [['embed', [V, D]]];
  for (let i = 0; i < config.nLayers; i++) {
    out.push(
      [`layers.${i}.attn_norm`, [D]],
      [`layers.${i}.attn.qkv`, [D, 3 * D]],
      [`layers.${i}.attn.out`, [D, D]],
      [`layers.${i}.mlp_norm`, [D]],
      [`layers.${i}.mlp.gate_up`, [D, 2 * F]],
      [`layers.${i}.mlp.down`, [F, D]],
    );
  }
  out.push(['final_norm', [D]]);
  if (!config.tieEmbeddings) out.push(['lm_head', [D, V]]);
  if (config.valueHead) out.push(['value_head', [D, 1]]);
  return out;
}

/** One standard normal draw (Box-Muller). */
export function gaussian(rng: Rng): number {
  // Box-Muller; 1 - u keeps the log argument in (0, 1].
  const u = 1 - rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
}

/**
 * GPT-2 style initialisation from a seed: N(0, 0.02) weights, residual output
 * projections scaled by 1/sqrt(2 * nLayers), norm gains 1. Same seed, same bytes.
 */
export function initHostParams(config: ModelConfig, seed: number): HostParams {
  const rng = createRng(seed);
  const residualStd = 0.02 / Math.sqrt(2 * config.nLayers);
  const out: HostParams = {};
  for (const [name, shape] of paramShapes(config)) {
    const size = shape.reduce((a, b) => a * b, 1);
    const data = new Float32Array(size);
    if (name.endsWith('norm')) data.fill(1);
    else {
      const std = name.endsWith('attn.out') || name.endsWith('mlp.down') ? residualStd : 0.02;
      for (let i = 0; i < size; i++) data[i] = gaussian(rng) * std;
    }
    out[name] = { shape, data };
  }
  return out;
}

/** Checks that `host` holds exactly the parameters `config` needs, with the right shapes. */
export function checkHostParams(config: ModelConfig, host: HostParams): void {
  const expected = paramShapes(config);
  const names = new Set(expected.map(([n]) => n));
  for (const name of Object.keys(host)) {
    if (!names.has(name)) throw new AppError(ErrorCode.ValidationFailed, `weights: unexpected tensor ${name}`);
  }
  for (const [name, shape] of expected) {
    const t = host[name];
    if (t === undefined) throw new AppError(ErrorCode.ValidationFailed, `weights: missing tensor ${name}`);
    if (t.shape.join(',') !== shape.join(',')) {
      throw new AppError(ErrorCode.ValidationFailed, `weights: tensor ${name} has shape [${t.shape}], expected [${shape}]`);
    }
  }
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
