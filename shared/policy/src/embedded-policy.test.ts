import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppError } from '@rl/service-kit/core';
import { np, tree } from './model/backend.ts';
import type { EmbeddedPolicy } from './embedded-policy.ts';
import { trackLiveBuffers } from './testing/live-buffers.ts';
import { tinyPolicy } from './testing/tiny-policy.ts';
import { arithmeticTokenizer } from './tokenizers/tokenizer.ts';

const tok = arithmeticTokenizer();
const PROMPTS = ['6,2:9,6', '1,3:9,1', '0,8:9,12', '5'].map((p) => tok.encode(p));
const greedy = { temperature: 0, maxTokens: 12, stopTokenIds: [] };

let policy: EmbeddedPolicy;
beforeAll(async () => {
  policy = await tinyPolicy(3);
});
afterAll(() => policy.dispose());

async function errorOf(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    return e as AppError;
  }
  throw new Error('expected a rejection');
}

describe('EmbeddedPolicy forward and generation', () => {
  it('prefill returns [B, V] logits and a cache of the requested capacity per layer', async () => {
    const { kernels, config } = policy;
    const ids = np.array(new Int32Array([4, 5, 6, 7, 8, 9])).reshape([2, 3]);
    const ones = () => np.ones([2, 3]);
    const out = kernels.prefill(tree.ref(policy.params), ids, np.array(Float32Array.from([0, 1, 2, 0, 1, 2])).reshape([2, 3]), ones(), 16);
    expect(out.logits.shape).toEqual([2, config.vocabSize]);
    expect(out.cache.k).toHaveLength(config.nLayers);
    expect(out.cache.k[0]!.shape).toEqual([2, config.nHeads, 16, config.dModel / config.nHeads]);
    tree.dispose(out);
  });

  it('KV-cache greedy decoding equals recomputing the whole sequence, token by token', async () => {
    const cached = await policy.generateWith(PROMPTS, greedy, { kvCache: true });
    const full = await policy.generateWith(PROMPTS, greedy, { kvCache: false });
    expect(cached.map((g) => g.tokenIds)).toEqual(full.map((g) => g.tokenIds));
    cached.forEach((g, i) => g.logprobs.forEach((lp, j) => expect(Math.abs(lp - full[i]!.logprobs[j]!)).toBeLessThan(1e-4)));
    expect(cached.every((g) => g.tokenIds.length === 12 && g.finishReason === 'length')).toBe(true);
  });

  it('log-probs from generate equal teacher-forced log-probs of the same sequence (within 1e-4)', async () => {
    const gens = await policy.generate(PROMPTS, { temperature: 1, maxTokens: 10, seed: 5, stopTokenIds: [] });
    const forced = await policy.logprobs(PROMPTS.map((prompt, i) => ({ prompt, response: gens[i]!.tokenIds })));
    gens.forEach((g, i) => {
      expect(forced[i]).toHaveLength(g.tokenIds.length);
      g.logprobs.forEach((lp, j) => expect(Math.abs(lp - forced[i]![j]!)).toBeLessThan(1e-4));
    });
  });

  it('a batch with different prompt lengths gives what each prompt gives alone', async () => {
    const batch = await policy.generate(PROMPTS, greedy);
    for (const [i, prompt] of PROMPTS.entries()) {
      const [alone] = await policy.generate([prompt], greedy);
      expect(alone!.tokenIds).toEqual(batch[i]!.tokenIds);
      alone!.logprobs.forEach((lp, j) => expect(Math.abs(lp - batch[i]!.logprobs[j]!)).toBeLessThan(1e-4));
    }
  });

  it('the same seed gives the same samples; another seed, other samples', async () => {
    const params = { temperature: 1.5, topP: 0.95, maxTokens: 16, seed: 42, stopTokenIds: [] };
    const a = await policy.generate(PROMPTS, params);
    const b = await policy.generate(PROMPTS, params);
    const c = await policy.generate(PROMPTS, { ...params, seed: 43 });
    expect(b).toEqual(a);
    expect(c.map((g) => g.tokenIds)).not.toEqual(a.map((g) => g.tokenIds));
    // Rows of one request draw from different streams, even for equal prompts.
    const twins = await policy.generate([PROMPTS[0]!, PROMPTS[0]!], params);
    expect(twins[0]!.tokenIds).not.toEqual(twins[1]!.tokenIds);
  });

  it('stops each row on its own at a stop token (kept in the ids) or a stop string (cut from the text)', async () => {
    const free = await policy.generate(PROMPTS, greedy);
    const firstId = free[0]!.tokenIds[0]!;
    const byToken = await policy.generate(PROMPTS, { ...greedy, stopTokenIds: [firstId] });
    expect(byToken[0]).toMatchObject({ tokenIds: [firstId], finishReason: 'stop', stopReason: firstId, text: '' });
    byToken.forEach((g, i) => {
      const cut = free[i]!.tokenIds.indexOf(firstId);
      expect(g.tokenIds).toEqual(cut < 0 ? free[i]!.tokenIds : free[i]!.tokenIds.slice(0, cut + 1));
    });
    const text = tok.decode(free[1]!.tokenIds);
    const stop = text.slice(3, 5);
    const [byString] = await policy.generate([PROMPTS[1]!], { ...greedy, stop: [stop] });
    expect(byString!.finishReason).toBe('stop');
    expect(byString!.stopReason).toBe(stop);
    expect(byString!.text).toBe(text.slice(0, text.indexOf(stop)));
    expect(tok.decode(byString!.tokenIds).endsWith(stop)).toBe(true);
  });

  it('never goes past maxSeqLen: a row near the limit finishes with length', async () => {
    const long = tok.encode('1,2,3,4,5,6,7,8,9,1,2,3,4,5,6,7,8,9,1,2,3,4,5,6,7,8,9,1,2,3,4'); // 61 of 64
    const [g] = await policy.generate([long], { ...greedy, maxTokens: 50 });
    expect(g!.tokenIds).toHaveLength(3);
    expect(g!.finishReason).toBe('length');
    const [none] = await policy.generate([PROMPTS[0]!], { ...greedy, maxTokens: 0 });
    expect(none).toMatchObject({ tokenIds: [], logprobs: [], finishReason: 'length' });
  });

  it('rows that stop early leave the batch (compaction) without changing any output', async () => {
    const prompts = Array.from({ length: 16 }, (_, i) => tok.encode(`${i % 10},${(i * 3) % 10}:9,${i % 7}`));
    const params = { temperature: 1, maxTokens: 20, seed: 11, stopTokenIds: tok.encode('0,') };
    const cached = await policy.generateWith(prompts, params, { kvCache: true });
    const full = await policy.generateWith(prompts, params, { kvCache: false });
    const lengths = cached.map((g) => g.tokenIds.length);
    expect(Math.min(...lengths)).toBeLessThan(4);
    expect(Math.max(...lengths)).toBeGreaterThan(10);
    expect(cached.map((g) => g.tokenIds)).toEqual(full.map((g) => g.tokenIds));
    cached.forEach((g, i) => g.logprobs.forEach((lp, j) => expect(Math.abs(lp - full[i]!.logprobs[j]!)).toBeLessThan(1e-4)));
  });

  it('runs requests larger than the batch limit in chunks with the same result', async () => {
    const many = Array.from({ length: 70 }, (_, i) => PROMPTS[i % PROMPTS.length]!);
    const out = await policy.generate(many, { ...greedy, maxTokens: 3 });
    const ref = await policy.generate(PROMPTS, { ...greedy, maxTokens: 3 });
    expect(out).toHaveLength(70);
    out.forEach((g, i) => expect(g.tokenIds).toEqual(ref[i % PROMPTS.length]!.tokenIds));
  });

  it('reports per-token entropies, within [0, ln V]', async () => {
    const [s] = await policy.score([{ prompt: PROMPTS[0]!, response: tok.encode('1,2') }]);
    expect(s!.entropy).toHaveLength(3);
    for (const e of s!.entropy) expect(e > 0 && e <= Math.log(policy.config.vocabSize) + 1e-5).toBe(true);
  });

  it('rejects bad prompts and parameters with codes naming the field', async () => {
    expect((await errorOf(policy.generate([[]], greedy))).message).toMatch(/prompts\[0\] is empty/);
    expect((await errorOf(policy.generate([[4, 99]], greedy))).message).toMatch(/prompts\[0\]\[1\]/);
    expect((await errorOf(policy.generate([new Array<number>(65).fill(4)], greedy))).message).toMatch(/more than the model's 64/);
    const bad = await errorOf(policy.generate([PROMPTS[0]!], { temperature: -1, maxTokens: 3 }));
    expect([bad.code, bad.message]).toEqual(['invalid_params', expect.stringMatching(/^params\.temperature/)]);
    expect((await errorOf(policy.generate([PROMPTS[0]!], { maxTokens: 3, stopTokenIds: [16] }))).message).toMatch(/params\.stopTokenIds\.0/);
    expect((await errorOf(policy.logprobs([{ prompt: [4], response: new Array<number>(64).fill(4) }]))).message).toMatch(/pairs\[0\]/);
  });

  it('stops at once on an aborted signal with its reason', async () => {
    const reason = new Error('client went away');
    const err = await errorOf(policy.generate(PROMPTS, greedy, AbortSignal.abort(reason)));
    expect(err).toBe(reason);
  });

  it('frees every tensor it allocates: the live buffer count is stable across calls', async () => {
    const live = await trackLiveBuffers();
    const work = async () => {
      await policy.generate(PROMPTS, { temperature: 1, maxTokens: 8, seed: 1 });
      await policy.generateWith(PROMPTS, { temperature: 1, maxTokens: 8, seed: 1 }, { kvCache: false });
      await policy.score(PROMPTS.map((prompt) => ({ prompt, response: [4, 5] })));
      await policy.logprobs(PROMPTS.map((prompt) => ({ prompt, response: [4, 5] })));
      await policy.generate(PROMPTS, greedy, AbortSignal.abort()).catch(() => undefined);
    };
    await work(); // compiles (jit constants stay alive with their programs)
    const before = live();
    for (let i = 0; i < 3; i++) await work();
    expect(live()).toBe(before);
  });
});
