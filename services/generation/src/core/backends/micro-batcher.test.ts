import { describe, expect, it } from 'vitest';
import { MicroBatcher } from './micro-batcher.ts';

function recorder(maxBatch: number) {
  const calls: Array<{ key: string; items: number[] }> = [];
  const gates: Array<PromiseWithResolvers<void>> = [];
  const batcher = new MicroBatcher<number, number>({
    maxBatch,
    run: async (key, items) => {
      calls.push({ key, items });
      const gate = Promise.withResolvers<void>();
      gates.push(gate);
      await gate.promise;
      return items.map((i) => i * 10);
    },
  });
  return { batcher, calls, gates };
}
const tick = () => new Promise<void>((r) => setImmediate(r));

describe('MicroBatcher', () => {
  it('batches what is submitted together, per key, and answers each item in order', async () => {
    const { batcher, calls, gates } = recorder(8);
    const results = [batcher.submit('a', 1), batcher.submit('a', 2), batcher.submit('b', 3)];
    await tick();
    expect(calls).toEqual([{ key: 'a', items: [1, 2] }]);
    gates[0]?.resolve();
    await tick();
    expect(calls[1]).toEqual({ key: 'b', items: [3] });
    gates[1]?.resolve();
    expect(await Promise.all(results)).toEqual([10, 20, 30]);
  });

  it('collects requests that arrive while a batch runs into the next one, up to maxBatch', async () => {
    const { batcher, calls, gates } = recorder(2);
    const first = batcher.submit('k', 1);
    await tick();
    const later = [2, 3, 4].map((i) => batcher.submit('k', i));
    gates[0]?.resolve();
    await first;
    await tick();
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 3]]);
    gates[1]?.resolve();
    await tick();
    gates[2]?.resolve();
    expect(await Promise.all(later)).toEqual([20, 30, 40]);
  });

  it('withdraws an aborted item that is still queued', async () => {
    const { batcher, calls, gates } = recorder(4);
    const first = batcher.submit('k', 1);
    await tick();
    const ctl = new AbortController();
    const dropped = batcher.submit('k', 2, ctl.signal);
    ctl.abort(new Error('gone'));
    await expect(dropped).rejects.toThrow('gone');
    expect(batcher.queued).toBe(0);
    gates[0]?.resolve();
    await first;
    expect(calls).toHaveLength(1);
  });

  it('rejects every item of a failing batch', async () => {
    const batcher = new MicroBatcher<number, number>({ maxBatch: 4, run: async () => Promise.reject(new Error('model failed')) });
    await expect(Promise.all([batcher.submit('k', 1), batcher.submit('k', 2)])).rejects.toThrow('model failed');
  });
});

describe('MicroBatcher cost limit', () => {
  it('keeps a batch within maxBatchCost, but always takes at least one item', async () => {
    const sizes: number[][] = [];
    const batcher = new MicroBatcher<number, number>({
      maxBatch: 10,
      cost: (i) => i,
      maxBatchCost: 10,
      run: async (_key, items) => (sizes.push(items), items),
    });
    await Promise.all([4, 5, 3, 20, 2].map((i) => batcher.submit('k', i)));
    expect(sizes).toEqual([[4, 5], [3], [20], [2]]);
  });
});
