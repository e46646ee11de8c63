import { describe, expect, it } from 'vitest';
import type { ItemOutcome, ModelItem, RewardBackend } from './backend.ts';
import { buildRoutes } from './routing.ts';
import { scoreBatch } from './score-batch.ts';

/** A backend that scores each response by its length and records the items of each call. */
function lengthBackend(name: string, kind: RewardBackend['kind'] = 'reward_model') {
  const calls: ModelItem[][] = [];
  const backend: RewardBackend = {
    name,
    kind,
    score: async (items) => {
      calls.push([...items]);
      return items.map(
        (i): ItemOutcome => (i.response === 'bad' ? { error: { code: 'scorer_failed', message: 'bad' }, extra: { raw: 'x' } } : { score: i.response.length }),
      );
    },
    ready: () => true,
    close: async () => {},
  };
  return { backend, calls };
}

const signal = new AbortController().signal;
const item = (data_source: string, solution_str: string, extra: Record<string, unknown> = {}) => ({ data_source, solution_str, ground_truth: null, ...extra });

describe('scoreBatch', () => {
  it('one call per backend with its items in request order; every result back in its slot', async () => {
    const a = lengthBackend('a');
    const b = lengthBackend('b', 'judge');
    const routes = buildRoutes([a.backend, b.backend], { x: 'a', y: 'b' });
    const out = await scoreBatch(
      [
        item('x', 'one'),
        item('y', 'three'),
        item('z', 'no route'),
        item('x', 'bad'),
        item('y', 'ab', { params: { judge: 'b' } }),
        item('x', 'four', { ground_truth: { target: [1] } }),
      ],
      routes,
      signal,
    );
    expect(out).toEqual([
      { score: 3 },
      { score: 5 },
      { error: { code: 'unknown_data_source', message: expect.stringContaining('"z"') } },
      { error: { code: 'scorer_failed', message: 'bad' }, extra: { raw: 'x' } },
      { score: 2 },
      { score: 4 },
    ]);
    expect(a.calls.map((c) => c.map((i) => i.response))).toEqual([['one', 'bad', 'four']]);
    expect(b.calls.map((c) => c.map((i) => i.response))).toEqual([['three', 'ab']]);
    expect(a.calls[0]?.[2]?.groundTruth).toBe('{"target":[1]}');
  });

  it('a backend that throws, or answers the wrong number of results, fails only its own items', async () => {
    const good = lengthBackend('good');
    const throws: RewardBackend = { ...lengthBackend('throws').backend, score: async () => Promise.reject(new Error('engine died')) };
    const short: RewardBackend = { ...lengthBackend('short').backend, score: async () => [] };
    const routes = buildRoutes([good.backend, throws, short], { g: 'good', t: 'throws', s: 'short' });
    const out = await scoreBatch([item('t', 'a'), item('g', 'ok'), item('s', 'b')], routes, signal);
    expect(out).toEqual([
      { error: { code: 'internal', message: 'engine died' } },
      { score: 2 },
      { error: { code: 'internal', message: 'backend short answered 0 results for 1 items' } },
    ]);
  });
});
