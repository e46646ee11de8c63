import { describe, expect, it } from 'vitest';
import type { RewardItem, RewardResult } from '@rl/client';
import { createRewardCache, createRewardStream, itemKey, type ItemScorer } from './reward-stream.ts';

/** A scorer whose calls stay open until the test releases them (a gate, no timers); score = answer length. */
function gatedScorer(options: { deterministic?: boolean; fail?: (call: number) => Error | undefined } = {}) {
  const calls: Array<{ items: readonly RewardItem[]; release(): void }> = [];
  const scorer: ItemScorer = {
    score(items) {
      const call = calls.length;
      const { promise, resolve } = Promise.withResolvers<void>();
      calls.push({ items, release: resolve });
      return promise.then(() => {
        const err = options.fail?.(call);
        if (err !== undefined) throw err;
        return {
          results: items.map(
            (it): RewardResult => ({ score: it.solution_str.length, extra: {}, error: null, ...(options.deterministic && { deterministic: true }) }),
          ),
        };
      });
    },
  };
  return { scorer, calls };
}

const item = (answer: string, extra: Partial<RewardItem> = {}): RewardItem => ({
  data_source: 'openai/gsm8k',
  solution_str: answer,
  ground_truth: '42',
  ...extra,
});
const flush = () => new Promise((r) => setImmediate(r));
const signal = new AbortController().signal;

describe('reward stream', () => {
  it('sends items as they are offered, batching what arrives while calls are out, and answers by index', async () => {
    const { scorer, calls } = gatedScorer();
    const stream = createRewardStream(scorer, { maxInFlight: 1, cache: createRewardCache({ acrossSteps: false, maxReusable: 10 }), signal });
    stream.offer(2, item('a'));
    await flush();
    expect(calls.map((c) => c.items.length)).toEqual([1]); // out at once
    stream.offer(0, item('bbb'));
    stream.offer(1, item('cc'));
    await flush();
    expect(calls).toHaveLength(1); // waiting for the call in flight
    calls[0]!.release();
    await flush();
    expect(calls.map((c) => c.items.map((i) => i.solution_str))).toEqual([['a'], ['bbb', 'cc']]);
    calls[1]!.release();
    const out = await stream.settle();
    expect([0, 1, 2].map((i) => out.get(i)?.score)).toEqual([3, 2, 1]);
    expect(stream.stats).toEqual({ items: 3, hits: 0, calls: 2 });
  });

  it('sends the items offered in one turn together', async () => {
    const { scorer, calls } = gatedScorer();
    const stream = createRewardStream(scorer, { maxInFlight: 4, cache: createRewardCache({ acrossSteps: false, maxReusable: 10 }), signal });
    for (const [i, answer] of ['a', 'bb', 'ccc'].entries()) stream.offer(i, item(answer));
    await flush();
    expect(calls.map((c) => c.items.map((it) => it.solution_str))).toEqual([['a', 'bb', 'ccc']]);
    calls[0]!.release();
    expect([...(await stream.settle()).values()].map((r) => r.score)).toEqual([1, 2, 3]);
  });

  it('scores identical items of a step once, shared by every index, and keeps the hits', async () => {
    const { scorer, calls } = gatedScorer();
    const cache = createRewardCache({ acrossSteps: true, maxReusable: 10 });
    cache.startStep(1);
    const stream = createRewardStream(scorer, { maxInFlight: 4, cache, signal });
    stream.offer(0, item('same'));
    stream.offer(1, item('same'));
    stream.offer(2, item('same', { ground_truth: '7' })); // another ground truth: another item
    stream.offer(3, item('same', { extra_info: { index: 3 } })); // another extra_info too
    await flush();
    for (const c of calls) c.release();
    const out = await stream.settle();
    expect(calls.flatMap((c) => c.items)).toHaveLength(3);
    expect(out.get(1)).toBe(out.get(0));
    expect(stream.stats).toMatchObject({ items: 4, hits: 1 });
  });

  it('reuses a result in a later step only when its service said the scoring is deterministic', async () => {
    for (const deterministic of [true, false]) {
      const { scorer, calls } = gatedScorer({ deterministic });
      const cache = createRewardCache({ acrossSteps: true, maxReusable: 10 });
      for (const step of [1, 2]) {
        cache.startStep(step);
        const stream = createRewardStream(scorer, { maxInFlight: 4, cache, signal });
        stream.offer(0, item('x'));
        await flush();
        for (const c of calls) c.release();
        await stream.settle();
      }
      expect(calls).toHaveLength(deterministic ? 1 : 2);
    }
  });

  it('keeps a step’s results for a retry of that step, but not a failed scoring', async () => {
    const { scorer, calls } = gatedScorer({ fail: (call) => (call === 1 ? new Error('reward service gone') : undefined) });
    const cache = createRewardCache({ acrossSteps: false, maxReusable: 10 });
    cache.startStep(5);
    const first = createRewardStream(scorer, { maxInFlight: 1, cache, signal });
    first.offer(0, item('kept'));
    await flush();
    calls[0]!.release();
    await flush();
    first.offer(1, item('lost'));
    await flush();
    calls[1]!.release();
    await expect(first.settle()).rejects.toThrow('reward service gone');
    cache.startStep(5); // the step runs again
    const again = createRewardStream(scorer, { maxInFlight: 1, cache, signal });
    again.offer(0, item('kept'));
    again.offer(1, item('lost'));
    await flush();
    expect(calls.map((c) => c.items.map((i) => i.solution_str))).toEqual([['kept'], ['lost'], ['lost']]);
    calls[2]!.release();
    const out = await again.settle();
    expect([out.get(0)?.score, out.get(1)?.score]).toEqual([4, 4]);
  });

  it('never shares an item that carries story signals', () => {
    expect(itemKey(item('a'))).toBeDefined();
    expect(itemKey(item('a', { signals: { logprobs_with_context: [], logprobs_without_context: [], entropies: [] } }))).toBeUndefined();
  });

  it('drops the oldest reusable result past maxReusable', async () => {
    const { scorer, calls } = gatedScorer({ deterministic: true });
    const cache = createRewardCache({ acrossSteps: true, maxReusable: 1 });
    const run = async (step: number, answer: string) => {
      cache.startStep(step);
      const stream = createRewardStream(scorer, { maxInFlight: 1, cache, signal });
      stream.offer(0, item(answer));
      await flush();
      for (const c of calls) c.release();
      return stream.settle();
    };
    await run(1, 'a');
    await run(2, 'b'); // evicts a
    await run(3, 'b'); // hit
    await run(4, 'a'); // scored again
    expect(calls.map((c) => c.items[0]!.solution_str)).toEqual(['a', 'b', 'a']);
  });
});
