// Generation on the torch engine (TorchTrainer.snapshot: the child samples with
// its KV cache, nothing exported) against the embedded jax-js policy on one
// checkpoint: greedy rows token for token with their log-probs, stop strings and
// stop ids as the embedded policy applies them; seeds reproduce; a snapshot is
// refused once an optimizer step has changed the weights; bad requests are the
// embedded policy's own 400s.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '@rl/service-kit/core';
import { tempDir } from '@rl/datasets/testing';
import { type EmbeddedPolicy, policyFromWeights } from '../embedded-policy.ts';
import { loadModelDir } from '../hf/model-dir.ts';
import { np } from '../model/backend.ts';
import { writeTinyModelDir } from '../testing/tiny-hf-model.ts';
import type { Generation } from '../types.ts';
import { OPTIMIZER, SLOW_MS } from './testing/engine-fixtures.ts';
import { TorchTrainer } from './torch-trainer.ts';

/** fp32 on the CPU in both engines. */
const TOLERANCE = 1e-4;
/** Mixed lengths; the last leaves 4 positions of the model's 64. */
const PROMPTS = [[3, 140, 15, 9, 226], [27, 1, 8], [7], Array.from({ length: 60 }, (_, i) => 32 + i)];

const tmp = tempDir('rl-torch-generate-');
afterAll(() => tmp.cleanup());

let dir: string;
let jax: EmbeddedPolicy;
let torch: TorchTrainer;
beforeAll(async () => {
  dir = join(tmp.dir, 'policy');
  // scale 9: logits of order 1, so greedy choices are not near-ties.
  await writeTinyModelDir(dir, { architecture: 'Qwen3ForCausalLM', tieEmbeddings: false, config: { attentionBias: true }, seed: 41, scale: 9 });
  jax = await policyFromWeights(await loadModelDir(dir));
  torch = await TorchTrainer.open(dir, OPTIMIZER);
}, SLOW_MS);
afterAll(() => {
  jax?.dispose();
  torch?.dispose();
});

function expectSameRows(got: Generation[], want: Generation[]): void {
  expect(got.map(({ logprobs: _, ...rest }) => rest)).toEqual(want.map(({ logprobs: _, ...rest }) => rest));
  got.forEach((g, i) => {
    const w = want[i]!.logprobs;
    expect(g.logprobs).toHaveLength(w.length);
    g.logprobs.forEach((lp, j) => expect(Math.abs(lp - w[j]!)).toBeLessThan(TOLERANCE));
  });
}

describe('TorchTrainer generation (the child generates)', () => {
  it(
    'gives the embedded policy greedy rows token for token, log-probs within 1e-4, stop ids and stop strings applied alike',
    async () => {
      const policy = await torch.snapshot('v0');
      const greedy = { temperature: 0, maxTokens: 12, stopTokenIds: [] };
      const want = await jax.generate(PROMPTS, greedy);
      const got = await policy.generate(PROMPTS, greedy);
      expectSameRows(got, want);
      expect(got.map((g) => [g.tokenIds.length, g.finishReason])).toEqual([
        [12, 'length'],
        [12, 'length'],
        [12, 'length'],
        [4, 'length'],
      ]);
      // A stop id from a row's greedy output, and a stop string from another's text (cut there, the ids kept up to it).
      const stopId = want[0]!.tokenIds[4]!;
      const text = want[1]!.text!;
      const stop = text.slice(3, 5);
      expect(stop.length).toBe(2);
      const params = { temperature: 0, maxTokens: 12, stopTokenIds: [stopId], stop: [stop] };
      const cut = await policy.generate(PROMPTS, params);
      expectSameRows(cut, await jax.generate(PROMPTS, params));
      expect(cut[0]).toMatchObject({ finishReason: 'stop', stopReason: stopId });
      expect(cut[0]!.tokenIds.at(-1)).toBe(stopId);
      expect(cut[1]).toMatchObject({ finishReason: 'stop', stopReason: stop });
      expect(cut[1]!.tokenIds.length).toBeLessThan(12);
      // Scoring through the snapshot is the trainer's own.
      const pairs = PROMPTS.map((prompt, i) => ({ prompt, response: got[i]!.tokenIds }));
      const scored = await policy.logprobs(pairs);
      scored.forEach((lp, i) => lp.forEach((x, j) => expect(Math.abs(x - got[i]!.logprobs[j]!)).toBeLessThan(1e-5)));
      policy.dispose();
    },
    SLOW_MS,
  );

  it(
    'reproduces sampled rows from their seeds, with row seeds independent of the batch',
    async () => {
      const policy = await torch.snapshot('v0');
      const params = { temperature: 1, topK: 40, topP: 0.95, maxTokens: 10, seed: 7 };
      const a = await policy.generate(PROMPTS, params);
      expectSameRows(await policy.generate(PROMPTS, params), a);
      expect((await policy.generate(PROMPTS, { ...params, seed: 8 })).map((g) => g.tokenIds)).not.toEqual(a.map((g) => g.tokenIds));
      const rowSeeds = [11, 12, 13, 14];
      const batch = await policy.generate(PROMPTS, { ...params, rowSeeds });
      const alone = await policy.generate([PROMPTS[2]!], { ...params, rowSeeds: [13] });
      expectSameRows(alone, [batch[2]!]);
      // The log-probs reported are the untempered ones: the teacher-forced scores.
      const scored = await policy.logprobs(PROMPTS.map((prompt, i) => ({ prompt, response: a[i]!.tokenIds })));
      scored.forEach((lp, i) => lp.forEach((x, j) => expect(Math.abs(x - a[i]!.logprobs[j]!)).toBeLessThan(1e-5)));
      policy.dispose();
    },
    SLOW_MS,
  );

  it(
    'refuses what the embedded policy refuses, naming the field',
    async () => {
      const policy = await torch.snapshot('v0');
      await expect(policy.generate([[1, 2], []], { maxTokens: 4 })).rejects.toThrow('prompts[1] is empty');
      await expect(policy.generate([Array(65).fill(1)], { maxTokens: 4 })).rejects.toThrow("prompts[0] has 65 tokens, more than the model's 64");
      await expect(policy.generate([[1]], { maxTokens: 4, temperature: -1 })).rejects.toThrow('temperature');
      await expect(policy.generate([[1]], { maxTokens: 4, rowSeeds: [1, 2] })).rejects.toThrow('params.rowSeeds');
      policy.dispose();
      await expect(policy.generate([[1]], { maxTokens: 4 })).rejects.toThrow('used after dispose');
    },
    SLOW_MS,
  );

  it(
    'serves a snapshot until an optimizer step changes the weights, exporting nothing',
    async () => {
      const trainer = await TorchTrainer.open(dir, OPTIMIZER);
      try {
        const before = await trainer.snapshot('v0');
        const prompts = PROMPTS.slice(0, 2);
        const first = await before.generate(prompts, { temperature: 0, maxTokens: 6 });
        const batch = { pairs: prompts.map((prompt, i) => ({ prompt, response: first[i]!.tokenIds })), inputs: {} };
        await trainer.accumulate(batch, (t) => ({ loss: np.sum(t.logprobs.mul(t.mask)).mul(-1) }));
        await expect(before.generate(prompts, { temperature: 0, maxTokens: 6 })).resolves.toHaveLength(2); // accumulating changes no weight
        await trainer.applyGradients({ lr: 0.05 });
        const stale = before.generate(prompts, { temperature: 0, maxTokens: 6 });
        await expect(stale).rejects.toThrow(AppError);
        await expect(stale).rejects.toThrow('the weights have changed since');
        const after = await trainer.snapshot('v1');
        const moved = await after.generate(prompts, { temperature: 0, maxTokens: 6 });
        // The step raised the log-probs of what was sampled: the snapshot samples the new weights.
        const scored = await after.logprobs(batch.pairs);
        expect(scored[0]!.reduce((a, b) => a + b, 0)).toBeGreaterThan(first[0]!.logprobs.reduce((a, b) => a + b, 0));
        expect(moved).toHaveLength(2);
        const costs = trainer.boundaryCosts();
        expect(costs.generate?.requests).toBe(3);
        expect(costs.weights).toBeUndefined();
      } finally {
        trainer.dispose();
      }
    },
    SLOW_MS,
  );
});
