// The torch engine as two processes (worldSize 2: rank 0 and one peer over
// gloo on CPU) trains as one process does: the same scores, PPO loss, grad
// norm and weights after a step, through the TorchTrainer surface the policy
// worker uses; a killed peer fails the next call with `unavailable`; a world
// size that is not a count is refused by name.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AppError, createRng, ErrorCode } from '@rl/service-kit/core';
import { tempDir } from '@rl/datasets/testing';
import { np } from '../model/backend.ts';
import { writeTinyModelDir } from '../testing/tiny-hf-model.ts';
import type { PolicyLoss } from '../training/loss-inputs.ts';
import type { TrainBatch } from '../training/train-batch.ts';
import { TorchEngine } from './torch-engine.ts';
import { OPTIMIZER, PAIRS, SLOW_MS } from './testing/engine-fixtures.ts';
import { TorchTrainer } from './torch-trainer.ts';

/** Same engine, same fp32 CPU kernels: only the slices' padding and per-rank thread count differ (a few ulps). */
const TOLERANCE = 2e-6;

/** A token-mean policy gradient with an entropy bonus. */
const pg: PolicyLoss = (t) => {
  const mask = t.mask;
  const n = np.sum(mask.ref);
  const loss = np
    .sum(t.logprobs.mul(t.input('advantages')).mul(mask.ref))
    .div(n.ref)
    .mul(-1);
  return { loss: loss.sub(np.sum(t.entropy.mul(mask)).div(n).mul(0.01)) };
};

function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(b.length).toBe(a.length);
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i]! - b[i]!));
  return worst;
}

const tmp = tempDir('rl-torch-world-');
afterAll(() => tmp.cleanup());

describe('TorchTrainer with worldSize 2', () => {
  it(
    'scores and steps as one process: leaves, loss, grad norm and weights',
    async () => {
      const dir = join(tmp.dir, 'policy');
      await writeTinyModelDir(dir, { architecture: 'Qwen3ForCausalLM', seed: 41, scale: 9 });
      const [one, two] = await Promise.all([
        TorchTrainer.open(dir, OPTIMIZER, { device: 'cpu' }),
        TorchTrainer.open(dir, OPTIMIZER, { device: 'cpu', worldSize: 2 }),
      ]);
      try {
        expect([one.worldSize, two.worldSize]).toEqual([1, 2]);
        const [a, b] = [await one.score(PAIRS), await two.score(PAIRS)];
        PAIRS.forEach((_, i) => {
          expect(maxDiff(a[i]!.logprobs, b[i]!.logprobs)).toBeLessThanOrEqual(TOLERANCE);
          expect(maxDiff(a[i]!.entropy, b[i]!.entropy)).toBeLessThanOrEqual(TOLERANCE);
        });
        const rng = createRng(8);
        const batch: TrainBatch = { pairs: PAIRS, inputs: { advantages: PAIRS.map((p) => p.response.map(() => 2 * rng.next() - 1)) } };
        const [x, y] = [await one.step(batch, pg), await two.step(batch, pg)];
        expect(Math.abs(x.loss - y.loss)).toBeLessThanOrEqual(TOLERANCE);
        expect(y).toMatchObject({ skipped: false, step: 1 });
        expect(Math.abs(x.gradNorm - y.gradNorm) / x.gradNorm).toBeLessThanOrEqual(1e-6);
        const [wx, wy] = [await one.exportWeights('s1'), await two.exportWeights('s1')];
        for (const [name, t] of Object.entries(wx.params)) expect(maxDiff(t.data, wy.params[name]!.data), name).toBeLessThanOrEqual(1e-6);
        // The peer (rank 0's one child process) killed: the next call fails with `unavailable` naming it, and the engine is done.
        const peer = Number(readFileSync(`/proc/${two.pid}/task/${two.pid}/children`, 'utf8').trim());
        process.kill(peer, 'SIGKILL');
        await expect(two.score(PAIRS)).rejects.toMatchObject({
          code: ErrorCode.Unavailable,
          message: expect.stringContaining(`peer rank 1 (pid ${peer}) exited (signal 9)`),
        });
        // The engine exits after answering (its group is broken): later calls fail too.
        await expect(two.score(PAIRS)).rejects.toMatchObject({ code: ErrorCode.Unavailable });
      } finally {
        one.dispose();
        two.dispose();
      }
    },
    SLOW_MS,
  );

  it('refuses a world size that is not a count of processes, naming it', async () => {
    for (const worldSize of [0, 1.5, Number.NaN]) {
      await expect(TorchEngine.start({ worldSize })).rejects.toThrow(
        new AppError(ErrorCode.ValidationFailed, `torch engine: worldSize must be an integer >= 1 (got ${worldSize})`),
      );
    }
    await expect(TorchEngine.start({ worldSize: 2, collectiveTimeoutMs: 0 })).rejects.toThrow(/collectiveTimeoutMs must be a positive number/);
  });
});
