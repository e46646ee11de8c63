import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppError } from '@rl/service-kit/core';
import { np } from '../model/backend.ts';
import type { PolicyLoss } from './loss-inputs.ts';
import { PolicyTrainer } from './policy-trainer.ts';
import { trackLiveBuffers } from '../testing/live-buffers.ts';
import { tinyPolicy } from '../testing/tiny-policy.ts';
import { arithmeticTokenizer } from '../tokenizers/tokenizer.ts';

const tok = arithmeticTokenizer();
const PROMPTS = ['6,2:9,6', '1,3:9,1'].map((p) => tok.encode(p));
const TARGET = tok.encode('2,9,6,3');
const COPY = { pairs: PROMPTS.map((prompt) => ({ prompt, response: TARGET })) };

/** Token-mean negative log-likelihood, with the mean entropy as a metric. */
const nll: PolicyLoss = (t) => {
  const mask = t.mask;
  const tokens = np.sum(mask.ref);
  return { loss: np.sum(t.logprobs.mul(mask.ref)).mul(-1).div(tokens), metrics: { entropy: np.sum(t.entropy.mul(mask)).div(np.sum(t.mask)) } };
};

/** REINFORCE-style loss reading a per-token input. */
const weighted: PolicyLoss = (t) => ({ loss: np.sum(t.logprobs.mul(t.input('advantages')).mul(t.mask)).mul(-1) });

let trainer: PolicyTrainer;
beforeAll(async () => {
  const init = await tinyPolicy(2);
  trainer = await PolicyTrainer.create(await init.exportWeights(), { lr: 1e-2, weightDecay: 0 });
  init.dispose();
});
afterAll(() => trainer.dispose());

async function errorOf(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    return e as AppError;
  }
  throw new Error('expected a rejection');
}

describe('PolicyTrainer', () => {
  it('learns to copy a fixed sequence: the loss falls and greedy decoding reproduces it', async () => {
    const first = await trainer.step(COPY, nll);
    expect(first.loss).toBeGreaterThan(2);
    expect(first.metrics.entropy).toBeGreaterThan(2);
    expect(first.gradNorm).toBeGreaterThan(0);
    let last = first;
    for (let i = 0; i < 119; i++) last = await trainer.step(COPY, nll);
    expect(last.step).toBe(120);
    expect(last.loss).toBeLessThan(0.05);
    const snap = await trainer.snapshot('trained');
    const gens = await snap.generate(PROMPTS, { temperature: 0, maxTokens: TARGET.length, stopTokenIds: [] });
    expect(gens.map((g) => g.text)).toEqual(['2,9,6,3', '2,9,6,3']);
    snap.dispose();
  });

  it('snapshots keep their weights while the trainer moves on', async () => {
    const snap = await trainer.snapshot('before');
    const pairs = [{ prompt: PROMPTS[0]!, response: TARGET }];
    const before = await snap.logprobs(pairs);
    await trainer.step({ pairs, inputs: { advantages: [TARGET.map(() => -1)] } }, weighted);
    expect(await snap.logprobs(pairs)).toEqual(before);
    const moved = await trainer.snapshot('after');
    expect(await moved.logprobs(pairs)).not.toEqual(before);
    snap.dispose();
    moved.dispose();
  });

  it('accumulating a batch twice at scale 1/2 gives the gradient of one pass', async () => {
    await trainer.accumulate(COPY, nll);
    const a = await trainer.applyGradients({ lr: 0 });
    await trainer.accumulate(COPY, nll, 0.5);
    await trainer.accumulate(COPY, nll, 0.5);
    const b = await trainer.applyGradients({ lr: 0 });
    expect(b.gradNorm).toBeCloseTo(a.gradNorm, 5);
  });

  it('takes a PPO clipped loss written with the exported ops (the README example)', async () => {
    const ppo: PolicyLoss = (t) => {
      const ratio = np.exp(t.logprobs.sub(t.input('old_logprobs')));
      const adv = t.input('advantages');
      const pg = np.maximum(ratio.ref.mul(adv.ref).mul(-1), np.clip(ratio, 0.8, 1.28).mul(adv).mul(-1));
      const mask = t.mask;
      return { loss: np.sum(pg.mul(mask.ref)).div(np.sum(mask)), metrics: { entropy: np.mean(t.entropy) } };
    };
    const pairs = COPY.pairs;
    const old = (await trainer.score(pairs)).map((s) => s.logprobs);
    const advantages = pairs.map((p, i) => p.response.map(() => (i === 0 ? 1 : -1)));
    const res = await trainer.step({ pairs, inputs: { old_logprobs: old, advantages } }, ppo);
    // At ratio 1 the clipped objective is -mean(advantage) = 0 here.
    expect(Math.abs(res.loss)).toBeLessThan(1e-5);
    expect(Number.isFinite(res.metrics.entropy)).toBe(true);
    expect(res.gradNorm).toBeGreaterThan(0);
  });

  it('skips the update when the gradient is not finite', async () => {
    const poisoned: PolicyLoss = (t) => ({ loss: np.sum(t.logprobs.mul(t.mask)).mul(Number.NaN) });
    const pairs = [{ prompt: PROMPTS[0]!, response: TARGET }];
    const before = await trainer.score(pairs);
    const stepBefore = trainer.updates;
    const res = await trainer.step({ pairs }, poisoned);
    expect(res.skipped).toBe(true);
    expect(Number.isNaN(res.gradNorm)).toBe(true);
    expect(trainer.updates).toBe(stepBefore);
    expect(await trainer.score(pairs)).toEqual(before);
  });

  it('round-trips the optimizer state for checkpoints', async () => {
    const bytes = await trainer.exportOptimizerState();
    await trainer.importOptimizerState(bytes);
    expect(await trainer.exportOptimizerState()).toEqual(bytes);
    expect(trainer.updates).toBeGreaterThan(0);
    const other = await tinyPolicy(1, arithmeticTokenizer().config, { dModel: 16 });
    const wrong = await PolicyTrainer.create(await other.exportWeights(), { lr: 1e-3 });
    await expect(wrong.importOptimizerState(bytes)).rejects.toThrow(/optimizer state/);
    wrong.dispose();
    other.dispose();
  });

  it('rejects missing or misshapen loss inputs naming them', async () => {
    const pairs = [{ prompt: PROMPTS[0]!, response: TARGET }];
    expect((await errorOf(trainer.accumulate({ pairs }, weighted))).message).toMatch(/advantages/);
    expect((await errorOf(trainer.accumulate({ pairs, inputs: { advantages: [[1, 2]] } }, weighted))).message).toMatch(
      /inputs\.advantages\[0\] has 2 values, expected 7/,
    );
    expect((await errorOf(trainer.applyGradients())).code).toBe('bad_request');
  });

  it('frees every tensor it allocates across training steps', async () => {
    const live = await trackLiveBuffers();
    const work = async () => {
      await trainer.step(COPY, nll);
      await trainer.accumulate({ pairs: COPY.pairs, inputs: { advantages: COPY.pairs.map((p) => p.response.map(() => 0.5)) } }, weighted, 0.5);
      await trainer.applyGradients();
      await trainer.score(COPY.pairs);
      (await trainer.snapshot('tmp')).dispose();
    };
    await work();
    const before = live();
    for (let i = 0; i < 3; i++) await work();
    expect(live()).toBe(before);
  });
});
