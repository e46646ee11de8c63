// LoRA training on both engines from one adapter: the jax-js LoraTrainer
// (adapters merged into the weights inside the differentiated forward) and
// the torch engine (rl_torch_engine/lora.py, adapters unmerged, a real python
// child) agree on the scores, a PPO step's loss and grad norm, the merged
// weights after it, and read each other's optimizer state.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRng } from '@rl/service-kit/core';
import { tempDir } from '@rl/datasets/testing';
import type { PolicyWeights } from '../embedded-policy.ts';
import { loadModelDir } from '../hf/model-dir.ts';
import { np } from '../model/backend.ts';
import type { HostParams } from '../model/params.ts';
import { writeTinyModelDir } from '../testing/tiny-hf-model.ts';
import { TorchTrainer } from '../torch/torch-trainer.ts';
import type { PolicyLoss } from '../training/loss-inputs.ts';
import type { TrainBatch } from '../training/train-batch.ts';
import { readAdapterDir } from './adapter-dir.ts';
import { LoraTrainer } from './lora-trainer.ts';

/** Both engines fp32 on CPU: log-probs, losses and weights after a step. */
const TOLERANCE = 1e-4;
/** Relative, for the gradient norm. */
const NORM_TOLERANCE = 1e-4;
const SLOW_MS = 120_000;
const PYTHON = process.env.RL_TORCH_PYTHON ?? '/usr/bin/python3';
const PYTHON_PACKAGES = fileURLToPath(new URL('../../../python', import.meta.url));
/**
 * Adam's first step moves each entry by about lr * sign(gradient) whatever its size, so an adapter entry whose
 * gradient is at the engines' rounding noise (~1e-7 here: they sum over tokens and ranks in different orders) could
 * move either way; eps 1e-6 (above the noise, far below the typical entry) makes those move in proportion instead.
 */
const OPTIMIZER = { lr: 1e-2, betas: [0.9, 0.95] as [number, number], eps: 1e-6, weightDecay: 0.1, maxGradNorm: 1 };
/** init_lora_weights false: B random too, so the first step moves A as well as B. */
const LORA = { r: 4, lora_alpha: 8, target_modules: 'all-linear', use_rslora: true, init_lora_weights: false, seed: 7 };

const PAIRS = [
  { prompt: [3, 140, 15, 9, 226], response: [5, 35, 80, 9] },
  { prompt: [27, 1, 8], response: [2, 8, 180, 28, 1, 8, 255, 0] },
  { prompt: [7], response: [1] },
  { prompt: [200, 201, 202, 203, 204, 205, 206, 207], response: [33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44] },
];

/** A critic's squared error to the returns (token-mean). */
const valueLoss: PolicyLoss = (t) => {
  const err = np.square(t.values.sub(t.input('returns')));
  return { loss: np.sum(err.mul(t.mask.ref)).div(np.sum(t.mask)).mul(0.5) };
};

/** verl's vanilla PPO clip (token-mean): reads log-probs and two inputs. */
const ppo: PolicyLoss = (t) => {
  const ratio = np.exp(t.logprobs.sub(t.input('old_logprobs')));
  const adv = t.input('advantages');
  const pg = np.maximum(ratio.ref.mul(adv.ref).mul(-1), np.clip(ratio, 0.8, 1.2).mul(adv).mul(-1));
  return { loss: np.sum(pg.mul(t.mask.ref)).div(np.sum(t.mask)) };
};

function perToken(seed: number, scale: number, offset: (i: number, j: number) => number = () => 0): number[][] {
  const rng = createRng(seed);
  return PAIRS.map((p, i) => p.response.map((_, j) => offset(i, j) + scale * (2 * rng.next() - 1)));
}

function maxDiff(a: HostParams, b: HostParams): number {
  expect(Object.keys(a).sort()).toEqual(Object.keys(b).sort());
  let worst = 0;
  for (const [name, t] of Object.entries(a)) for (let i = 0; i < t.data.length; i++) worst = Math.max(worst, Math.abs(t.data[i]! - b[name]!.data[i]!));
  return worst;
}

const tmp = tempDir('rl-lora-trainer-');
afterAll(() => tmp.cleanup());

let policyDir: string;
let adapterDir: string;
let weights: PolicyWeights;
beforeAll(async () => {
  policyDir = join(tmp.dir, 'policy');
  // scale 9: Linear weights of std ~1/sqrt(32), so the logits spread and the gradients are not near zero.
  await writeTinyModelDir(policyDir, { architecture: 'Qwen3ForCausalLM', tieEmbeddings: false, config: { attentionBias: true }, seed: 31, scale: 9 });
  weights = await loadModelDir(policyDir);
  adapterDir = torchStartAdapter(policyDir, 'start');
}, SLOW_MS);

/** The torch engine's starting adapter for {@link LORA} on `modelDir`, which the jax-js trainer then starts from too. */
function torchStartAdapter(modelDir: string, name: string): string {
  const dir = join(tmp.dir, name);
  const script = [
    'import json, sys',
    'from rl_torch_engine import load_model_dir',
    'from rl_torch_engine.lora import apply_lora, save_adapter',
    'model = load_model_dir(sys.argv[1])',
    'apply_lora(model, json.loads(sys.argv[3]))',
    'save_adapter(model, sys.argv[2], sys.argv[1])',
  ].join('\n');
  execFileSync(PYTHON, ['-c', script, modelDir, dir, JSON.stringify(LORA)], { env: { ...process.env, PYTHONPATH: PYTHON_PACKAGES }, timeout: SLOW_MS });
  return dir;
}

describe('LoRA on the jax-js and torch engines', () => {
  it(
    'agree on scores, a PPO step (loss, grad norm, merged weights after it) and each other’s optimizer state',
    async () => {
      const start = await readAdapterDir(adapterDir);
      const jax = await LoraTrainer.create(weights, OPTIMIZER, start.settings, { adapter: start });
      const torch = await TorchTrainer.open(policyDir, OPTIMIZER, { lora: LORA });
      try {
        const [a, b] = [await jax.score(PAIRS), await torch.score(PAIRS)];
        const base = jax.reference('base');
        const old = (await base.score(PAIRS)).map((s) => Array.from(s.logprobs));
        let scoreDiff = 0;
        let fromBase = 0;
        a.forEach((s, i) =>
          s.logprobs.forEach((v, j) => {
            scoreDiff = Math.max(scoreDiff, Math.abs(v - b[i]!.logprobs[j]!));
            fromBase = Math.max(fromBase, Math.abs(v - old[i]![j]!));
          }),
        );
        expect(scoreDiff).toBeLessThan(TOLERANCE);
        expect(fromBase).toBeGreaterThan(1e-2); // the starting adapter is not a no-op (B random)
        const before = await jax.exportWeights('s0');
        const batch: TrainBatch = { pairs: PAIRS, inputs: { old_logprobs: perToken(5, 0.3, (i, j) => old[i]![j]!), advantages: perToken(6, 1) } };
        const [x, y] = [await jax.accumulate(batch, ppo, 0.5), await torch.accumulate(batch, ppo, 0.5)];
        expect(Math.abs(x.loss - y.loss)).toBeLessThan(TOLERANCE);
        const [sx, sy] = [await jax.applyGradients(), await torch.applyGradients()];
        expect([sx.step, sy.step, sx.skipped, sy.skipped]).toEqual([1, 1, false, false]);
        expect(Math.abs(sx.gradNorm - sy.gradNorm) / sx.gradNorm).toBeLessThan(NORM_TOLERANCE);
        const [wx, wy] = [await jax.exportWeights('s1'), await torch.exportWeights('s1')];
        expect(maxDiff(wx.params, wy.params)).toBeLessThan(TOLERANCE);
        expect(maxDiff(wx.params, before.params)).toBeGreaterThan(1e-3); // the step moved the merged weights
        // The reference (the base) did not move.
        expect((await base.score(PAIRS)).map((s) => Array.from(s.logprobs))).toEqual(old);
        base.dispose();
        // Optimizer state: the same names on both engines, so either resumes from the other's file.
        await jax.importOptimizerState(await torch.exportOptimizerState());
        await torch.importOptimizerState(await jax.exportOptimizerState());
        expect([jax.updates, torch.updates]).toEqual([1, 1]);
      } finally {
        jax.dispose();
        torch.dispose();
      }
    },
    SLOW_MS,
  );

  it(
    'train a critic alike: LoRA on the layers, the value head whole (values, value-loss step, weights after it)',
    async () => {
      const criticDir = join(tmp.dir, 'critic');
      await writeTinyModelDir(criticDir, { architecture: 'Qwen2ForCausalLM', valueHead: true, seed: 32, scale: 9 });
      const criticWeights = await loadModelDir(criticDir);
      const start = await readAdapterDir(torchStartAdapter(criticDir, 'critic-start'));
      expect(start.settings.valueHead).toBe(true);
      const jax = await LoraTrainer.create(criticWeights, OPTIMIZER, start.settings, { adapter: start });
      const torch = await TorchTrainer.open(criticDir, OPTIMIZER, { lora: LORA });
      try {
        const [va, vb] = [await jax.values(PAIRS), await torch.values(PAIRS)];
        let worst = 0;
        va.forEach((row, i) => row.forEach((v, j) => (worst = Math.max(worst, Math.abs(v - vb[i]![j]!)))));
        expect(worst).toBeLessThan(TOLERANCE);
        const before = await jax.exportWeights('c0');
        const batch: TrainBatch = { pairs: PAIRS, inputs: { returns: perToken(8, 1) } };
        const [x, y] = [await jax.accumulate(batch, valueLoss), await torch.accumulate(batch, valueLoss)];
        expect(Math.abs(x.loss - y.loss)).toBeLessThan(TOLERANCE);
        const [sx, sy] = [await jax.applyGradients(), await torch.applyGradients()];
        expect(Math.abs(sx.gradNorm - sy.gradNorm) / sx.gradNorm).toBeLessThan(NORM_TOLERANCE);
        const [wx, wy] = [await jax.exportWeights('c1'), await torch.exportWeights('c1')];
        expect(maxDiff(wx.params, wy.params)).toBeLessThan(TOLERANCE);
        expect(Math.abs(wx.params['score.bias']!.data[0]! - before.params['score.bias']!.data[0]!)).toBeGreaterThan(1e-4); // the head trained
        const adapter = await jax.exportAdapter();
        expect(adapter.settings.valueHead).toBe(true);
        expect(adapter.tensors['base_model.model.score.weight']!.shape).toEqual([1, 32]);
      } finally {
        jax.dispose();
        torch.dispose();
      }
    },
    SLOW_MS,
  );
});
