// PEFT LoRA adapters in TypeScript: adapter_config.json as peft writes and
// reads it, adapter directories round-trip, merging computes W + scaling B A,
// and what cannot be merged is refused naming the file and the key.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRng } from '@rl/service-kit/core';
import { tempDir } from '@rl/datasets/testing';
import { policyFromWeights } from '../embedded-policy.ts';
import { loadModelDir } from '../hf/model-dir.ts';
import type { ModelConfig } from '../model/model-config.ts';
import { gaussian, type HostParams } from '../model/params.ts';
import { writeTinyModelDir } from '../testing/tiny-hf-model.ts';
import { type LoraSettings, parseAdapterConfig } from './adapter-config.ts';
import { readAdapterDir, writeAdapterDir } from './adapter-dir.ts';
import { adapterShapes, type LoraAdapter, loraTargets, mergeAdapter } from './lora-adapter.ts';

const tmp = tempDir('rl-lora-');
afterAll(() => tmp.cleanup());

const SETTINGS: LoraSettings = {
  r: 3,
  loraAlpha: 6,
  targetModules: ['q_proj', 'v_proj', 'down_proj'],
  excludeModules: null,
  useRslora: false,
  loraDropout: 0,
  initLoraWeights: true,
  valueHead: false,
  baseModel: '/models/base',
};

/** An adapter whose A and B are both random (a trained one), or with B zero (a fresh one). */
function randomAdapter(config: ModelConfig, settings: LoraSettings, seed: number, freshB = false): LoraAdapter {
  const rng = createRng(seed);
  const tensors: HostParams = {};
  for (const [name, shape] of adapterShapes(config, settings, 'adapter_config.json')) {
    const n = shape.reduce((a, b) => a * b, 1);
    const zero = freshB && name.endsWith('lora_B.weight');
    tensors[name] = { shape, data: Float32Array.from({ length: n }, () => (zero ? 0 : 0.3 * gaussian(rng))) };
  }
  return { settings, tensors };
}

async function tinyModel(name: string) {
  const dir = join(tmp.dir, name);
  await writeTinyModelDir(dir, { architecture: 'Qwen3ForCausalLM', tieEmbeddings: false, seed: 4, scale: 9 });
  return { dir, weights: await loadModelDir(dir) };
}

describe('LoRA adapters', () => {
  it('merges W + scaling B A into the targeted weights only (alpha / r, or alpha / sqrt(r) with rsLoRA)', async () => {
    const { weights } = await tinyModel('merge');
    for (const [useRslora, scaling] of [
      [false, 6 / 3],
      [true, 6 / Math.sqrt(3)],
    ] as const) {
      const adapter = randomAdapter(weights.config, { ...SETTINGS, useRslora }, 7);
      const merged = mergeAdapter(weights, adapter);
      const name = 'model.layers.1.self_attn.v_proj';
      const w = weights.params[`${name}.weight`]!;
      const a = adapter.tensors[`base_model.model.${name}.lora_A.weight`]!;
      const b = adapter.tensors[`base_model.model.${name}.lora_B.weight`]!;
      const [outDim, inDim] = w.shape as [number, number];
      for (const [o, i] of [
        [0, 0],
        [outDim - 1, inDim - 1],
        [3, 17],
      ] as const) {
        let delta = 0;
        for (let k = 0; k < 3; k++) delta += b.data[o * 3 + k]! * a.data[k * inDim + i]!;
        expect(merged.params[`${name}.weight`]!.data[o * inDim + i]).toBeCloseTo(w.data[o * inDim + i]! + scaling * delta, 5);
      }
      const changed = Object.keys(weights.params).filter((k) => merged.params[k] !== weights.params[k]);
      expect(changed.sort()).toEqual(
        [0, 1].flatMap((l) => ['mlp.down_proj', 'self_attn.q_proj', 'self_attn.v_proj'].map((m) => `model.layers.${l}.${m}.weight`)).sort(),
      );
      expect(weights.params[`${name}.weight`]).toBe(w); // the base is not modified
    }
    // A fresh adapter (B zero) leaves every weight as it was.
    const fresh = mergeAdapter(weights, randomAdapter(weights.config, SETTINGS, 8, true));
    for (const [k, t] of Object.entries(weights.params)) expect(Array.from(fresh.params[k]!.data), k).toEqual(Array.from(t.data));
  });

  it('targets modules as peft does: name suffixes, a full-match regular expression, all-linear without the heads, exclusions', async () => {
    const { weights } = await tinyModel('targets');
    const config = weights.config;
    const pick = (targetModules: LoraSettings['targetModules'], excludeModules: LoraSettings['excludeModules'] = null) =>
      loraTargets(config, { targetModules, excludeModules }, 'f');
    expect(pick('all-linear')).toHaveLength(2 * 7);
    expect(pick('all-linear')).not.toContain('lm_head');
    expect(pick(['mlp.up_proj'])).toEqual(['model.layers.0.mlp.up_proj', 'model.layers.1.mlp.up_proj']);
    expect(pick('.*\\.1\\.self_attn\\.(q|k)_proj')).toEqual(['model.layers.1.self_attn.q_proj', 'model.layers.1.self_attn.k_proj']);
    expect(() => pick('q_proj')).toThrow('f: target_modules: selects no module of the model'); // a string is a full match, not a suffix
    expect(pick(['q_proj'], ['layers.0.self_attn.q_proj'])).toEqual(['model.layers.1.self_attn.q_proj']);
  });

  it('round-trips a directory in peft format (config fields, tensor names and shapes, values)', async () => {
    const { weights } = await tinyModel('roundtrip');
    const adapter = randomAdapter(weights.config, { ...SETTINGS, targetModules: 'all-linear' }, 9);
    const dir = join(tmp.dir, 'adapter');
    await writeAdapterDir(dir, adapter);
    const config = JSON.parse(readFileSync(join(dir, 'adapter_config.json'), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(config)).toEqual(Object.keys(config).sort());
    expect(config).toMatchObject({
      peft_type: 'LORA',
      task_type: 'CAUSAL_LM',
      r: 3,
      lora_alpha: 6,
      lora_dropout: 0,
      bias: 'none',
      fan_in_fan_out: false,
      use_rslora: false,
      use_dora: false,
      target_modules: 'all-linear',
      base_model_name_or_path: '/models/base',
      modules_to_save: null,
    });
    const read = await readAdapterDir(dir);
    expect(read.settings).toEqual(adapter.settings);
    expect(Object.keys(read.tensors).sort()).toEqual(Object.keys(adapter.tensors).sort());
    expect(read.tensors['base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight']!.shape).toEqual([3, 32]);
    expect(read.tensors['base_model.model.model.layers.1.mlp.gate_proj.lora_B.weight']!.shape).toEqual([48, 3]);
    for (const [k, t] of Object.entries(adapter.tensors)) expect(Array.from(read.tensors[k]!.data), k).toEqual(Array.from(t.data));
    // The merged model scores differently from the base.
    const base = await policyFromWeights(weights);
    const adapted = await policyFromWeights(mergeAdapter(weights, read, read.configFile));
    try {
      const pair = [{ prompt: [3, 40, 15], response: [5, 35, 8] }];
      const [b] = await base.score(pair);
      const [a] = await adapted.score(pair);
      expect(Math.abs(a!.logprobs[0]! - b!.logprobs[0]!)).toBeGreaterThan(1e-3);
    } finally {
      base.dispose();
      adapted.dispose();
    }
  });

  it('refuses what it cannot apply, naming the file and the key', async () => {
    const { weights } = await tinyModel('refusals');
    const base = JSON.parse(
      '{"peft_type": "LORA", "r": 4, "lora_alpha": 8, "target_modules": ["q_proj"], "bias": "none", "task_type": "CAUSAL_LM", "rank_pattern": {}, "layers_to_transform": null}',
    ) as Record<string, unknown>;
    const refused: Array<[Record<string, unknown>, string]> = [
      [{ peft_type: 'IA3' }, 'f.json: peft_type: "IA3" is not supported (LORA only)'],
      [{ bias: 'all' }, 'f.json: bias: "all" is not supported ("none" only'],
      [{ r: 0 }, 'f.json: r: must be a positive integer'],
      [{ target_modules: undefined }, 'f.json: target_modules: must be a list of module names'],
      [{ use_dora: true }, 'f.json: use_dora: DoRA is not supported'],
      [{ fan_in_fan_out: true }, 'f.json: fan_in_fan_out: must be false'],
      [{ rank_pattern: { q_proj: 8 } }, 'f.json: rank_pattern: per-module ranks are not supported'],
      [{ init_lora_weights: 'pissa' }, 'f.json: init_lora_weights: "pissa" is not supported'],
      [{ target_modules: '(' }, 'f.json: target_modules: "(" is not a regular expression'],
    ];
    for (const [change, message] of refused) {
      expect(() => parseAdapterConfig({ ...base, ...change }, 'f.json'), message).toThrow(message);
    }
    const settings = parseAdapterConfig(base, 'f.json');
    expect(() => mergeAdapter(weights, { settings: { ...settings, targetModules: ['q_proj', 'c_attn'] }, tensors: {} }, 'f.json')).toThrow(
      'f.json: target_modules: "c_attn" is not a module of the model (its Linear modules end in down_proj, gate_proj, k_proj, o_proj, q_proj, up_proj, v_proj)',
    );
    expect(() => mergeAdapter(weights, { settings: { ...settings, targetModules: ['lm_head'] }, tensors: {} }, 'f.json')).toThrow(
      'f.json: target_modules: selects the head lm_head',
    );
    const adapter = randomAdapter(weights.config, settings, 3);
    const key = 'base_model.model.model.layers.1.self_attn.q_proj.lora_B.weight';
    const wrongShape = { ...adapter, tensors: { ...adapter.tensors, [key]: { shape: [32, 5], data: new Float32Array(160) } }, source: 'w.st' };
    expect(() => mergeAdapter(weights, wrongShape)).toThrow(`w.st: ${key}: shape [32, 5], expected [32, 4]`);
    const { [key]: _dropped, ...rest } = adapter.tensors;
    expect(() => mergeAdapter(weights, { ...adapter, tensors: rest, source: 'w.st' })).toThrow(`w.st: ${key}: tensor missing from the adapter`);
    const extra = 'base_model.model.model.layers.0.mlp.up_proj.lora_A.weight';
    const more = { ...adapter, tensors: { ...adapter.tensors, [extra]: { shape: [4, 32], data: new Float32Array(128) } }, source: 'w.st' };
    expect(() => mergeAdapter(weights, more)).toThrow(`w.st: ${extra}: tensor the adapter's config does not target`);
    // A directory: bad JSON, no weights.
    const dir = join(tmp.dir, 'bad-adapter');
    await writeAdapterDir(dir, adapter);
    writeFileSync(join(dir, 'adapter_config.json'), '{"r": ');
    await expect(readAdapterDir(dir)).rejects.toThrow(`${join(dir, 'adapter_config.json')}: (root): not valid JSON`);
    await expect(readAdapterDir(join(tmp.dir, 'nothing'))).rejects.toThrow('not a PEFT adapter directory (no adapter_config.json)');
  });
});
