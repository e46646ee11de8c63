// A small random Hugging Face model directory in the real on-disk format
// (config.json, model.safetensors or index + shards in F32/BF16/F16,
// generation_config.json, tokenizer files), written independently of
// saveModelDir so loaders are tested against the layout transformers writes.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createRng } from '@rl/service-kit/core';
import type { PolicyWeights } from '../embedded-policy.ts';
import { toHfConfig } from '../hf/hf-config.ts';
import { type Architecture, type ModelConfigInput, parseModelConfig } from '../model/model-config.ts';
import { gaussian, initHostParams, type HostParams } from '../model/params.ts';
import { ByteTokenizer } from '../tokenizers/byte-tokenizer.ts';
import { generationIds, tokenizerFiles } from '../tokenizers/tokenizer-dir.ts';
import type { PolicyTokenizer } from '../tokenizers/tokenizer.ts';
import { decodeTensorBytes, encodeTensorBytes, type StoredDtype } from '../weights/dtypes.ts';
import { encodeSafetensors } from '../weights/safetensors.ts';

/** Options of {@link writeTinyModelDir}. */
export interface TinyModelDirOptions {
  /** @default 'Qwen3ForCausalLM' */
  architecture?: Architecture;
  /** Stored precision of the weights. @default 'F32' */
  dtype?: StoredDtype;
  /** More than 1 writes model.safetensors.index.json and that many shards. @default 1 */
  shards?: number;
  /** @default true */
  tieEmbeddings?: boolean;
  /** Writes a one-label ...ForTokenClassification (no lm_head). @default false */
  valueHead?: boolean;
  /** Any other ModelConfig field (nKvHeads, headDim, attentionBias, mlpBias, ropeScaling, sizes...). */
  config?: Partial<ModelConfigInput>;
  /** @default a ByteTokenizer */
  tokenizer?: PolicyTokenizer;
  /** @default 1 */
  seed?: number;
  /** Written as config.json's rl_policy_version when given. */
  version?: string;
  /** Multiplies the N(0, 0.02) weights (9 gives Linear weights of std ~1/sqrt(32), logits of order 1). @default 1 */
  scale?: number;
}

/** Sizes of the tiny model: grouped-query attention (4 query heads, 2 kv heads). */
export const TINY_HF: Omit<ModelConfigInput, 'vocabSize'> = { dModel: 32, nLayers: 2, nHeads: 4, nKvHeads: 2, dFF: 48, maxSeqLen: 64 };

/**
 * Writes a random tiny model directory and returns its weights as a loader
 * should read them: values rounded to `dtype` and back to Float32. Norm gains
 * and biases are random too (not 1 and 0), so a forward pass that skips one
 * gives different numbers.
 */
export async function writeTinyModelDir(dir: string, options: TinyModelDirOptions = {}): Promise<PolicyWeights> {
  const dtype = options.dtype ?? 'F32';
  const shards = options.shards ?? 1;
  const seed = options.seed ?? 1;
  const tokenizer = options.tokenizer ?? new ByteTokenizer();
  const config = parseModelConfig({
    ...TINY_HF,
    vocabSize: tokenizer.vocabSize,
    architecture: options.architecture ?? 'Qwen3ForCausalLM',
    tieEmbeddings: options.valueHead === true ? true : (options.tieEmbeddings ?? true),
    valueHead: options.valueHead ?? false,
    ...options.config,
  });
  const rng = createRng(seed + 7919);
  const params: HostParams = {};
  for (const [name, t] of Object.entries(initHostParams(config, seed))) {
    const data = Float32Array.from(t.data, (v) => v * (options.scale ?? 1));
    if (name.endsWith('norm.weight')) for (let i = 0; i < data.length; i++) data[i] = 1 + 0.1 * gaussian(rng);
    if (name.endsWith('.bias')) for (let i = 0; i < data.length; i++) data[i] = 0.02 * gaussian(rng);
    params[name] = { shape: t.shape, data: decodeTensorBytes(dtype, encodeTensorBytes(dtype, data)) };
  }
  await mkdir(dir, { recursive: true });
  const ids = generationIds(tokenizer);
  const hfConfig = { ...toHfConfig(config, ids, { dtype }), ...(options.version !== undefined && { rl_policy_version: options.version }) };
  await writeFile(join(dir, 'config.json'), JSON.stringify(hfConfig, null, 2));
  await writeFile(join(dir, 'generation_config.json'), JSON.stringify({ bos_token_id: ids.bos, eos_token_id: ids.eos, pad_token_id: ids.pad }));
  for (const [name, text] of Object.entries(tokenizerFiles(tokenizer))) await writeFile(join(dir, name), text);
  const names = Object.keys(params).sort();
  if (shards <= 1) {
    await writeFile(join(dir, 'model.safetensors'), encodeSafetensors(params, { format: 'pt' }, { dtype }));
  } else {
    const weightMap: Record<string, string> = {};
    const per = Math.ceil(names.length / shards);
    let totalSize = 0;
    for (let s = 0; s < shards; s++) {
      const file = `model-${String(s + 1).padStart(5, '0')}-of-${String(shards).padStart(5, '0')}.safetensors`;
      const part: HostParams = {};
      for (const name of names.slice(s * per, (s + 1) * per)) {
        part[name] = params[name] as PolicyWeights['params'][string];
        weightMap[name] = file;
        totalSize += (part[name]?.data.length ?? 0) * (dtype === 'F32' ? 4 : 2);
      }
      await writeFile(join(dir, file), encodeSafetensors(part, { format: 'pt' }, { dtype }));
    }
    await writeFile(join(dir, 'model.safetensors.index.json'), JSON.stringify({ metadata: { total_size: totalSize }, weight_map: weightMap }, null, 2));
  }
  return { version: options.version ?? 'hf', config, tokenizer: tokenizer.config, params };
}
