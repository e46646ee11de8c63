import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppError } from '@rl/service-kit/core';
import { tempDir } from '@rl/datasets/testing';
import { ByteTokenizer } from '../tokenizers/byte-tokenizer.ts';
import type { EmbeddedPolicy } from '../embedded-policy.ts';
import { decodeSafetensors, encodeSafetensors } from './safetensors.ts';
import { parseHfConfig, toHfConfig } from '../hf/hf-config.ts';
import { saveModelDir } from '../hf/model-dir.ts';
import { tinyPolicy } from '../testing/tiny-policy.ts';
import { decodeWeights, encodeWeights, loadPolicy, loadWeights, saveWeights } from './weights.ts';

const tmp = tempDir('rl-policy-weights-');
let policy: EmbeddedPolicy;
beforeAll(async () => {
  policy = await tinyPolicy(4, new ByteTokenizer().config, { tieEmbeddings: false });
});
afterAll(() => {
  policy.dispose();
  tmp.cleanup();
});

function codeOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    return `${(e as AppError).code}: ${(e as Error).message}`;
  }
  return 'no error';
}

describe('policy weights as safetensors', () => {
  it('carry format, version, model and tokenizer config in __metadata__', async () => {
    const { metadata, tensors } = decodeSafetensors(encodeWeights(await policy.exportWeights('v7')));
    expect(metadata.format).toBe('rl-policy');
    expect(metadata.format_version).toBe('2');
    expect(metadata.version).toBe('v7');
    expect(JSON.parse(metadata.config!)).toEqual(toHfConfig(policy.config));
    expect(parseHfConfig(JSON.parse(metadata.config!))).toEqual(policy.config);
    expect(JSON.parse(metadata.tokenizer_config!)).toEqual({ kind: 'byte' });
    expect(Object.keys(tensors)).toContain('lm_head.weight');
    expect(tensors['model.layers.1.self_attn.q_proj.weight']!.shape).toEqual([32, 32]);
  });

  it('round-trip through a file: same bytes, same weights, same generations', async () => {
    const path = join(tmp.dir, 'nested', 'policy.safetensors');
    const weights = await policy.exportWeights('v1');
    await saveWeights(path, weights);
    expect(new Uint8Array(readFileSync(path))).toEqual(encodeWeights(weights));
    const loaded = await loadPolicy(path);
    expect(loaded.version).toBe('v1');
    expect(loaded.tokenizer.kind).toBe('byte');
    expect(await loaded.exportWeights()).toEqual(weights);
    const prompt = [loaded.tokenizer.applyChatTemplate([{ role: 'user', content: 'hi' }], { addGenerationPrompt: true })];
    const params = { temperature: 0.8, maxTokens: 6, seed: 3 };
    expect(await loaded.generate(prompt, params)).toEqual(await policy.generate(prompt, params));
    loaded.dispose();
    // A Hugging Face model directory loads the same way.
    const dir = join(tmp.dir, 'hf-dir');
    await saveModelDir(dir, weights);
    const fromDir = await loadPolicy(dir);
    expect(fromDir.version).toBe('v1');
    expect(await fromDir.generate(prompt, params)).toEqual(await policy.generate(prompt, params));
    fromDir.dispose();
  });

  it('reject files that are not policy weights, naming what is wrong', async () => {
    const weights = await policy.exportWeights('v1');
    const good = encodeWeights(weights);
    const { tensors, metadata } = decodeSafetensors(good);
    const withMeta = (m: Record<string, string>) => encodeSafetensors(tensors, { ...metadata, ...m });
    expect(codeOf(() => decodeWeights(withMeta({ format: 'other' })))).toMatch(/^validation_failed: weights: __metadata__\.format/);
    expect(codeOf(() => decodeWeights(withMeta({ version: '' })))).toMatch(/version is missing/);
    expect(codeOf(() => decodeWeights(withMeta({ config: '{"architectures":["GPT2LMHeadModel"]}' })))).toMatch(
      /^validation_failed: weights: __metadata__\.config: architectures\[0\]: "GPT2LMHeadModel" is not supported/,
    );
    expect(codeOf(() => decodeWeights(withMeta({ config: 'not json' })))).toMatch(/^bad_request: weights: __metadata__\.config/);
    expect(codeOf(() => decodeWeights(withMeta({ tokenizer_config: 'not json' })))).toMatch(/^bad_request: weights: __metadata__\.tokenizer_config/);
    const { 'lm_head.weight': _dropped, ...missing } = tensors;
    expect(codeOf(() => decodeWeights(encodeSafetensors(missing, metadata)))).toBe('validation_failed: weights: missing tensor lm_head.weight');
    const wrongShape = { ...tensors, 'model.norm.weight': { shape: [2, 16], data: new Float32Array(32) } };
    expect(codeOf(() => decodeWeights(encodeSafetensors(wrongShape, metadata)))).toMatch(/model\.norm\.weight has shape \[2,16\]/);
    expect(codeOf(() => decodeWeights(withMeta({ format_version: '1' })))).toMatch(/format must be rl-policy v2, got rl-policy v1/);
    const path = join(tmp.dir, 'truncated.safetensors');
    writeFileSync(path, good.subarray(0, good.length - 4));
    await expect(loadPolicy(path)).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(loadWeights(path)).rejects.toThrow(new RegExp(`^${path}: tensor \\S+: data_offsets .* fall outside the \\d+-byte data section$`));
  });
});
