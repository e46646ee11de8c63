// `rl-policy logprobs --adapter DIR` on both engines (real child processes):
// jax merges the adapter into the weights, torch runs it unmerged; both give
// the log-probs of the merged model directory. Adapters written by TypeScript
// (writeAdapterDir) and by the torch engine (rl_torch_engine.lora.save_adapter)
// are read by both sides.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRng } from '@rl/service-kit/core';
import { tempDir } from '@rl/datasets/testing';
import { type ModelDirWeights, loadModelDir, saveModelDir } from '../hf/model-dir.ts';
import { gaussian, type HostParams } from '../model/params.ts';
import { writeTinyModelDir } from '../testing/tiny-hf-model.ts';
import { rlPolicy } from '../cli/testing/run-rl-policy.ts';
import type { LoraSettings } from './adapter-config.ts';
import { readAdapterDir, writeAdapterDir } from './adapter-dir.ts';
import { adapterShapes, mergeAdapter } from './lora-adapter.ts';

/** Absolute difference allowed between the engines' log-probs (both fp32 on CPU; torch adds B A x unmerged). */
const TOLERANCE = 1e-4;
const SLOW_MS = 120_000;
const PYTHON = process.env.RL_TORCH_PYTHON ?? '/usr/bin/python3';
const PYTHON_PACKAGES = fileURLToPath(new URL('../../../python', import.meta.url));

const PAIRS = [
  { prompt: [3, 140, 15, 9, 226], response: [5, 35, 80, 9] },
  { prompt: [27, 1, 8], response: [2, 8, 180, 28, 1, 8, 255, 0] },
  { prompt: [7], response: [1] },
];
const INPUT = PAIRS.map((p) => JSON.stringify({ prompt_ids: p.prompt, response_ids: p.response })).join('\n');

const tmp = tempDir('rl-lora-cli-');
afterAll(() => tmp.cleanup());

let baseDir: string;
let weights: ModelDirWeights;
beforeAll(async () => {
  baseDir = join(tmp.dir, 'base');
  // scale 9: Linear weights of std ~1/sqrt(32), so the logits spread and the log-probs differ per token.
  await writeTinyModelDir(baseDir, { architecture: 'Qwen3ForCausalLM', tieEmbeddings: false, config: { attentionBias: true }, seed: 31, scale: 9 });
  weights = await loadModelDir(baseDir, { tokenizer: false });
}, SLOW_MS);

async function logprobs(args: string[]): Promise<number[][]> {
  const run = await rlPolicy(['logprobs', ...args], INPUT, SLOW_MS);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return run.stdout
    .trimEnd()
    .split('\n')
    .map((l) => (JSON.parse(l) as { logprobs: number[] }).logprobs);
}

function expectClose(actual: number[][], expected: number[][], what: string): void {
  expect(actual.map((r) => r.length)).toEqual(expected.map((r) => r.length));
  actual.forEach((row, i) => row.forEach((v, t) => expect(Math.abs(v - expected[i]![t]!), `${what}: pair ${i} token ${t}`).toBeLessThan(TOLERANCE)));
}

/** The log-probs of the model with the adapter merged and saved as a full model directory (jax). */
async function mergedLogprobs(adapterDir: string, name: string): Promise<number[][]> {
  const adapter = await readAdapterDir(adapterDir);
  const mergedDir = join(tmp.dir, name);
  await saveModelDir(mergedDir, { ...mergeAdapter(weights, adapter, adapter.configFile), tokenizer: { kind: 'byte' } });
  return logprobs(['--model', mergedDir, '--engine', 'jax']);
}

describe('rl-policy logprobs --adapter', () => {
  it(
    'jax (merged) and torch (unmerged) agree with the merged model on an adapter written by TypeScript',
    async () => {
      const settings: LoraSettings = {
        r: 4,
        loraAlpha: 8,
        targetModules: ['q_proj', 'k_proj', 'o_proj', 'up_proj', 'down_proj'],
        excludeModules: null,
        useRslora: true,
        loraDropout: 0.05,
        initLoraWeights: true,
        valueHead: false,
        baseModel: baseDir,
      };
      const rng = createRng(5);
      const tensors: HostParams = {};
      for (const [name, shape] of adapterShapes(weights.config, settings, 'adapter_config.json')) {
        tensors[name] = { shape, data: Float32Array.from({ length: shape[0]! * shape[1]! }, () => 0.2 * gaussian(rng)) };
      }
      const adapterDir = join(tmp.dir, 'ts-adapter');
      await writeAdapterDir(adapterDir, { settings, tensors });
      const merged = await mergedLogprobs(adapterDir, 'ts-merged');
      const base = await logprobs(['--model', baseDir, '--engine', 'jax']);
      expect(Math.max(...merged.flat().map((v, i) => Math.abs(v - base.flat()[i]!)))).toBeGreaterThan(0.05);
      expectClose(await logprobs(['--model', baseDir, '--adapter', adapterDir, '--engine', 'jax']), merged, 'jax');
      expectClose(await logprobs(['--model', baseDir, '--adapter', adapterDir, '--engine', 'torch']), merged, 'torch');
    },
    SLOW_MS,
  );

  it(
    'both engines read an adapter the torch engine saved (all-linear, random A and B)',
    async () => {
      const adapterDir = join(tmp.dir, 'py-adapter');
      const script = [
        'import sys',
        'from rl_torch_engine import load_model_dir',
        'from rl_torch_engine.lora import apply_lora, save_adapter',
        'model = load_model_dir(sys.argv[1])',
        'apply_lora(model, {"r": 3, "lora_alpha": 7, "target_modules": "all-linear", "init_lora_weights": False, "seed": 11})',
        'save_adapter(model, sys.argv[2], sys.argv[1])',
      ].join('\n');
      execFileSync(PYTHON, ['-c', script, baseDir, adapterDir], { env: { ...process.env, PYTHONPATH: PYTHON_PACKAGES }, timeout: SLOW_MS });
      const read = await readAdapterDir(adapterDir);
      expect(read.settings).toMatchObject({ r: 3, loraAlpha: 7, baseModel: baseDir });
      expect(read.settings.targetModules).toEqual(['down_proj', 'gate_proj', 'k_proj', 'o_proj', 'q_proj', 'up_proj', 'v_proj']);
      expect(Object.keys(read.tensors)).toHaveLength(2 * 7 * 2);
      const merged = await mergedLogprobs(adapterDir, 'py-merged');
      expectClose(await logprobs(['--model', baseDir, '--adapter', adapterDir, '--engine', 'jax']), merged, 'jax');
      expectClose(await logprobs(['--model', baseDir, '--adapter', adapterDir, '--engine', 'torch']), merged, 'torch');
    },
    SLOW_MS,
  );

  it(
    'a bad adapter fails the run with exit status 1, naming the file and the key, on both engines',
    async () => {
      const adapterDir = join(tmp.dir, 'bad-adapter');
      const settings: LoraSettings = {
        r: 2,
        loraAlpha: 2,
        targetModules: ['c_attn'],
        excludeModules: null,
        useRslora: false,
        loraDropout: 0,
        initLoraWeights: true,
        valueHead: false,
        baseModel: null,
      };
      await writeAdapterDir(adapterDir, { settings, tensors: {} });
      for (const engineName of ['jax', 'torch']) {
        const run = await rlPolicy(['logprobs', '--model', baseDir, '--adapter', adapterDir, '--engine', engineName], INPUT, SLOW_MS);
        expect([run.code, run.stdout], engineName).toEqual([1, '']);
        expect(run.stderr, engineName).toContain(`${join(adapterDir, 'adapter_config.json')}: target_modules: "c_attn" is not a module of the model`);
      }
    },
    SLOW_MS,
  );
});
