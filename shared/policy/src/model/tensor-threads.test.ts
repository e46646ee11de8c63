// jax-js with kernels split over a worker thread (ensureTensorBackend's `threads`).
// This file must start the backend before anything loads jax-js, so it imports
// nothing that does; the shim's globals are removed afterwards so a reused test
// process does not inherit them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '@rl/service-kit/core';
import { ensureTensorBackend, np } from './backend.ts';
import type { EmbeddedPolicy } from '../embedded-policy.ts';
import { PolicyTrainer } from '../training/policy-trainer.ts';
import { tinyPolicy } from '../testing/tiny-policy.ts';
import { arithmeticTokenizer } from '../tokenizers/tokenizer.ts';

const tok = arithmeticTokenizer();
const PROMPTS = ['6,2:9,6', '1,3:9,1', '0,8:9,12', '5'].map((p) => tok.encode(p));

let policy: EmbeddedPolicy;
beforeAll(async () => {
  // A low threshold so that even this tiny model's kernels are split across the thread.
  await ensureTensorBackend({ threads: 2, minThreadElements: 64 });
  policy = await tinyPolicy(3);
});
afterAll(() => {
  policy.dispose();
  Reflect.deleteProperty(globalThis, 'Worker');
  Reflect.deleteProperty(globalThis.navigator, 'hardwareConcurrency');
});

describe('tensor backend with threads', () => {
  it('KV-cache greedy decoding equals recomputing the whole sequence', async () => {
    const greedy = { temperature: 0, maxTokens: 10, stopTokenIds: [] };
    const cached = await policy.generateWith(PROMPTS, greedy, { kvCache: true });
    const full = await policy.generateWith(PROMPTS, greedy, { kvCache: false });
    expect(cached.map((g) => g.tokenIds)).toEqual(full.map((g) => g.tokenIds));
    expect(cached.every((g) => g.tokenIds.length === 10)).toBe(true);
  });

  it('scores a pair the same alone and in a batch, and trains', async () => {
    const pairs = PROMPTS.map((prompt) => ({ prompt, response: tok.encode('1,2,3') }));
    const batch = await policy.score(pairs);
    const alone = await policy.score([pairs[2]!]);
    alone[0]!.logprobs.forEach((v, j) => expect(v).toBeCloseTo(batch[2]!.logprobs[j]!, 5));
    const trainer = await PolicyTrainer.create(await policy.exportWeights(), { lr: 1e-2 });
    const nll = (t: Parameters<Parameters<PolicyTrainer['step']>[1]>[0]) => {
      const mask = t.mask;
      return { loss: np.sum(t.logprobs.mul(mask.ref)).mul(-1).div(np.sum(mask)) };
    };
    const first = await trainer.step({ pairs }, nll);
    const second = await trainer.step({ pairs }, nll);
    expect(second.loss).toBeLessThan(first.loss);
    trainer.dispose();
  });

  it('cannot switch thread count once started', async () => {
    await expect(ensureTensorBackend({ threads: 0 })).rejects.toMatchObject({ code: ErrorCode.Internal });
    await expect(ensureTensorBackend()).resolves.toBeUndefined();
  });
});
