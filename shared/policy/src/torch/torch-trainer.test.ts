// The torch engine's trainer (a real python child) and the jax-js PolicyTrainer
// train one Hugging Face checkpoint alike: scores, a PPO step's loss, metrics,
// grad norm and weights, a critic's values and value-loss step; the AdamW state
// file written by either resumes on the other; a child killed mid-step fails
// the call with a clear error.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError, createRng } from '@rl/service-kit/core';
import { tempDir } from '@rl/datasets/testing';
import type { PolicyWeights } from '../embedded-policy.ts';
import { loadModelDir } from '../hf/model-dir.ts';
import { np } from '../model/backend.ts';
import type { HostParams } from '../model/params.ts';
import { writeTinyModelDir } from '../testing/tiny-hf-model.ts';
import type { PolicyLoss } from '../training/loss-inputs.ts';
import { PolicyTrainer } from '../training/policy-trainer.ts';
import type { TrainBatch } from '../training/train-batch.ts';
import { OPTIMIZER, PAIRS, SLOW_MS } from './testing/engine-fixtures.ts';
import { TorchTrainer } from './torch-trainer.ts';

/** Both engines fp32 on CPU: log-probs, entropies, values, losses and weights after a step. */
const TOLERANCE = 1e-4;
/** Relative, for the gradient norm. */
const NORM_TOLERANCE = 1e-4;

/** verl's vanilla PPO clip (token-mean) with an entropy bonus: reads log-probs, entropies and two inputs. */
const ppo: PolicyLoss = (t) => {
  const mask = t.mask;
  const ratio = np.exp(t.logprobs.sub(t.input('old_logprobs')));
  const adv = t.input('advantages');
  const pg = np.maximum(ratio.ref.mul(adv.ref).mul(-1), np.clip(ratio, 0.8, 1.2).mul(adv).mul(-1));
  const n = np.sum(mask.ref);
  const pgLoss = np.sum(pg.mul(mask.ref)).div(n.ref);
  const entropy = np.sum(t.entropy.mul(mask)).div(n);
  return { loss: pgLoss.ref.sub(entropy.ref.mul(0.01)), metrics: { pg_loss: pgLoss, entropy } };
};

/** A critic's squared error to the returns (token-mean). */
const valueLoss: PolicyLoss = (t) => {
  const mask = t.mask;
  const err = np.square(t.values.sub(t.input('returns')));
  return { loss: np.sum(err.mul(mask.ref)).div(np.sum(mask)).mul(0.5) };
};

function perToken(seed: number, scale: number, offset: (i: number, j: number) => number = () => 0): number[][] {
  const rng = createRng(seed);
  return PAIRS.map((p, i) => p.response.map((_, j) => offset(i, j) + scale * (2 * rng.next() - 1)));
}

function maxDiff(a: HostParams, b: HostParams): number {
  expect(Object.keys(a).sort()).toEqual(Object.keys(b).sort());
  let worst = 0;
  for (const [name, t] of Object.entries(a)) {
    const u = b[name]!;
    expect(u.shape).toEqual(t.shape);
    for (let i = 0; i < t.data.length; i++) worst = Math.max(worst, Math.abs(t.data[i]! - u.data[i]!));
  }
  return worst;
}

function maxRowDiff(a: ArrayLike<number>[], b: ArrayLike<number>[]): number {
  let worst = 0;
  a.forEach((row, i) => {
    expect(b[i]!.length).toBe(row.length);
    for (let j = 0; j < row.length; j++) worst = Math.max(worst, Math.abs(row[j]! - b[i]![j]!));
  });
  return worst;
}

const tmp = tempDir('rl-torch-trainer-');
afterAll(() => tmp.cleanup());

let policyDir: string;
let weights: PolicyWeights;
beforeAll(async () => {
  policyDir = join(tmp.dir, 'policy');
  // scale 9: Linear weights of std ~1/sqrt(32), so the logits spread and the gradients are not near zero.
  await writeTinyModelDir(policyDir, { architecture: 'Qwen3ForCausalLM', tieEmbeddings: false, config: { attentionBias: true }, seed: 31, scale: 9 });
  weights = await loadModelDir(policyDir);
});

describe('TorchTrainer and PolicyTrainer on one checkpoint', () => {
  it(
    'agree on scores and on a PPO step: loss, metrics, grad norm and the weights after it',
    async () => {
      const jax = await PolicyTrainer.create(weights, OPTIMIZER);
      const torch = await TorchTrainer.open(policyDir, OPTIMIZER);
      try {
        const [a, b] = [await jax.score(PAIRS), await torch.score(PAIRS)];
        expect(
          maxRowDiff(
            a.map((s) => s.logprobs),
            b.map((s) => s.logprobs),
          ),
        ).toBeLessThan(TOLERANCE);
        expect(
          maxRowDiff(
            a.map((s) => s.entropy),
            b.map((s) => s.entropy),
          ),
        ).toBeLessThan(TOLERANCE);
        const old = a.map((s) => Array.from(s.logprobs));
        const batch: TrainBatch = { pairs: PAIRS, inputs: { old_logprobs: perToken(5, 0.3, (i, j) => old[i]![j]!), advantages: perToken(6, 1) } };
        const [x, y] = [await jax.accumulate(batch, ppo, 0.5), await torch.accumulate(batch, ppo, 0.5)];
        expect(Math.abs(x.loss - y.loss)).toBeLessThan(TOLERANCE);
        expect(Object.keys(y.metrics).sort()).toEqual(['entropy', 'pg_loss']);
        for (const k of Object.keys(x.metrics)) expect(Math.abs(x.metrics[k]! - y.metrics[k]!)).toBeLessThan(TOLERANCE);
        const [sx, sy] = [await jax.applyGradients({ lr: 2e-4 }), await torch.applyGradients({ lr: 2e-4 })];
        expect(sy).toMatchObject({ skipped: false, step: 1 });
        expect(sx.gradNorm).toBeGreaterThan(OPTIMIZER.maxGradNorm); // the step clipped
        expect(Math.abs(sx.gradNorm - sy.gradNorm) / sx.gradNorm).toBeLessThan(NORM_TOLERANCE);
        const [wx, wy] = [await jax.exportWeights('s1'), await torch.exportWeights('s1')];
        expect(maxDiff(wx.params, wy.params)).toBeLessThan(TOLERANCE);
        expect(maxDiff(wx.params, weights.params)).toBeGreaterThan(1e-4); // the step moved the weights (by about lr)
        expect(torch.updates).toBe(1);
        // The child's own save is a directory the jax-js loader reads back to the exported weights.
        await torch.saveModelDir(join(tmp.dir, 'saved'), 's1');
        const saved = await loadModelDir(join(tmp.dir, 'saved'));
        expect(saved.version).toBe('s1');
        expect(maxDiff(saved.params, wy.params)).toBe(0);
        // The boundary's cost is measured per operation.
        const costs = torch.boundaryCosts();
        expect(Object.keys(costs).sort()).toEqual(['backward', 'forward', 'open', 'save', 'score', 'step', 'weights']);
        expect(costs.forward!.requests).toBe(1);
        expect(costs.weights!.bytesIn).toBeGreaterThan(4 * Object.values(wy.params).reduce((n, t) => n + t.data.length, 0));
      } finally {
        jax.dispose();
        torch.dispose();
      }
    },
    SLOW_MS,
  );

  it(
    'agree on a critic: values and a value-loss step',
    async () => {
      const dir = join(tmp.dir, 'critic');
      await writeTinyModelDir(dir, { architecture: 'Qwen3ForCausalLM', valueHead: true, seed: 32, scale: 9 });
      const critic = await loadModelDir(dir);
      const jax = await PolicyTrainer.create(critic, OPTIMIZER);
      const torch = await TorchTrainer.open(dir, OPTIMIZER);
      try {
        const [a, b] = [await jax.values(PAIRS), await torch.values(PAIRS)];
        expect(maxRowDiff(a, b)).toBeLessThan(TOLERANCE);
        const batch: TrainBatch = { pairs: PAIRS, inputs: { returns: perToken(7, 1) } };
        const [x, y] = [await jax.step(batch, valueLoss), await torch.step(batch, valueLoss)];
        expect(Math.abs(x.loss - y.loss)).toBeLessThan(TOLERANCE);
        expect(Math.abs(x.gradNorm - y.gradNorm) / x.gradNorm).toBeLessThan(NORM_TOLERANCE);
        expect(maxDiff((await jax.exportWeights('c1')).params, (await torch.exportWeights('c1')).params)).toBeLessThan(TOLERANCE);
        // A critic gives no log-probs: a loss that reads them is refused, naming the leaf, and the engine serves on.
        await expect(torch.accumulate({ pairs: PAIRS, inputs: { old_logprobs: perToken(5, 1), advantages: perToken(6, 1) } }, ppo)).rejects.toThrow(
          'loss reads leaves.logprobs, which were not supplied',
        );
        expect((await torch.values(PAIRS))[0]).toHaveLength(PAIRS[0]!.response.length);
      } finally {
        jax.dispose();
        torch.dispose();
      }
    },
    SLOW_MS,
  );

  it(
    'resume each other: the optimizer state either one writes steps on in the other',
    async () => {
      const batch: TrainBatch = { pairs: PAIRS, inputs: { old_logprobs: perToken(8, 0.2, () => -5), advantages: perToken(9, 1) } };
      // torch writes, jax-js resumes.
      const torch = await TorchTrainer.open(policyDir, OPTIMIZER);
      await torch.step(batch, ppo);
      const state = await torch.exportOptimizerState();
      const jax = await PolicyTrainer.create(await torch.exportWeights('t1'), OPTIMIZER);
      await jax.importOptimizerState(state);
      expect(jax.updates).toBe(1);
      // jax-js rewrites the same bytes it read: names, layout and metadata agree.
      expect(Buffer.from(await jax.exportOptimizerState()).equals(Buffer.from(state))).toBe(true);
      // jax-js writes, a fresh torch engine resumes from the same weights.
      const back = await TorchTrainer.create(await jax.exportWeights('t1'), OPTIMIZER);
      try {
        await back.importOptimizerState(await jax.exportOptimizerState());
        expect(back.updates).toBe(1);
        const [a, b, c] = [await torch.step(batch, ppo), await jax.step(batch, ppo), await back.step(batch, ppo)];
        expect([a.step, b.step, c.step]).toEqual([2, 2, 2]);
        const [wa, wb, wc] = [await torch.exportWeights('2'), await jax.exportWeights('2'), await back.exportWeights('2')];
        expect(maxDiff(wa.params, wc.params)).toBe(0); // torch resumed exactly
        expect(maxDiff(wa.params, wb.params)).toBeLessThan(TOLERANCE);
      } finally {
        torch.dispose();
        jax.dispose();
        back.dispose();
      }
    },
    SLOW_MS,
  );
});

describe('TorchTrainer compile (verl use_torch_compile)', () => {
  it(
    'is applied on CUDA only: on the CPU the model opens and steps exactly as without it',
    async () => {
      const batch: TrainBatch = { pairs: PAIRS, inputs: { old_logprobs: perToken(8, 0.2, () => -5), advantages: perToken(9, 1) } };
      const plain = await TorchTrainer.open(policyDir, OPTIMIZER);
      const compiled = await TorchTrainer.open(policyDir, OPTIMIZER, { compile: true });
      try {
        const [a, b] = [await plain.step(batch, ppo), await compiled.step(batch, ppo)];
        expect(b.gradNorm).toBe(a.gradNorm);
        expect(maxDiff((await plain.exportWeights('1')).params, (await compiled.exportWeights('1')).params)).toBe(0);
      } finally {
        plain.dispose();
        compiled.dispose();
      }
    },
    SLOW_MS,
  );
});

describe('TorchTrainer micro-batches', () => {
  it(
    'queued without awaiting run one after another (each forward meets its own backward) and sum as on jax-js',
    async () => {
      const batch: TrainBatch = { pairs: PAIRS, inputs: { old_logprobs: perToken(8, 0.2, () => -5), advantages: perToken(9, 1) } };
      const halves = [0, 2].map((at) => ({
        pairs: PAIRS.slice(at, at + 3),
        inputs: { old_logprobs: batch.inputs!.old_logprobs!.slice(at, at + 3), advantages: batch.inputs!.advantages!.slice(at, at + 3) },
      }));
      const jax = await PolicyTrainer.create(weights, OPTIMIZER);
      const torch = await TorchTrainer.open(policyDir, OPTIMIZER);
      try {
        for (const half of halves) await jax.accumulate(half, ppo, 0.5);
        const [x, y] = await Promise.all([torch.accumulate(halves[0]!, ppo, 0.5), torch.accumulate(halves[1]!, ppo, 0.5), torch.score(PAIRS)]);
        const [sx, sy] = [await jax.applyGradients(), await torch.applyGradients()];
        expect(x.loss).not.toBe(y.loss);
        expect(Math.abs(sx.gradNorm - sy.gradNorm) / sx.gradNorm).toBeLessThan(NORM_TOLERANCE);
        expect(maxDiff((await jax.exportWeights('1')).params, (await torch.exportWeights('1')).params)).toBeLessThan(TOLERANCE);
      } finally {
        jax.dispose();
        torch.dispose();
      }
    },
    SLOW_MS,
  );
});

describe('TorchTrainer failures', () => {
  it(
    'an engine killed mid-step fails the call and every later one with a clear error, never a hang',
    async () => {
      const torch = await TorchTrainer.open(policyDir, OPTIMIZER);
      try {
        await expect(torch.applyGradients()).rejects.toThrow('step: no gradients accumulated');
        const batch: TrainBatch = { pairs: PAIRS, inputs: { old_logprobs: perToken(8, 0.2, () => -5), advantages: perToken(9, 1) } };
        const pending = torch.accumulate(batch, ppo);
        process.kill(torch.pid as number, 'SIGKILL');
        const err = await pending.then(
          () => null,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(AppError);
        expect((err as AppError).code).toBe('unavailable');
        expect((err as AppError).message).toMatch(/^torch engine: the child process \(.*\) exited \(signal SIGKILL\)/);
        await expect(torch.applyGradients()).rejects.toThrow((err as AppError).message);
      } finally {
        torch.dispose();
      }
    },
    SLOW_MS,
  );

  it(
    'a model the engine cannot load fails the start with the file and key named',
    async () => {
      await expect(TorchTrainer.open(policyDir, { ...OPTIMIZER, lr: -1 })).rejects.toThrow('lr');
      await expect(TorchTrainer.open(join(tmp.dir, 'absent'), OPTIMIZER)).rejects.toThrow('not a model directory');
    },
    SLOW_MS,
  );
});
