import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ErrorCode } from '@rl/service-kit';
import { createBatchingEmbedder } from './batching-embedder.ts';

/** A fake model: vector (length, first char code); records every run. */
function countingRunner() {
  const runs: string[][] = [];
  let failNext = false;
  return {
    runs,
    failOnce: () => {
      failNext = true;
    },
    runBatch: async (texts: readonly string[]) => {
      runs.push([...texts]);
      if (failNext) {
        failNext = false;
        throw new Error('model crashed');
      }
      return texts.map((t) => Float32Array.from([t.length, t.charCodeAt(0) || 0]));
    },
  };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('createBatchingEmbedder', () => {
  it('concurrent embed() calls share one model run', async () => {
    const r = countingRunner();
    const embedder = createBatchingEmbedder({ modelId: 'fake', dim: 2, runBatch: r.runBatch, batchWindowMs: 2 });
    const calls = [embedder.embed(['a']), embedder.embed(['bb', 'ccc']), embedder.embed(['dddd'])];
    await vi.advanceTimersByTimeAsync(2);
    const [a, bc, d] = await Promise.all(calls);
    expect(r.runs).toEqual([['a', 'bb', 'ccc', 'dddd']]);
    expect(Array.from(a![0]!)).toEqual([1, 97]);
    expect(bc!.map((v) => v[0])).toEqual([2, 3]);
    expect(Array.from(d![0]!)).toEqual([4, 100]);
  });

  it('serves repeats from the cache and sends duplicates within a call once', async () => {
    const r = countingRunner();
    const embedder = createBatchingEmbedder({ modelId: 'fake', dim: 2, runBatch: r.runBatch, batchWindowMs: 0 });
    const first = embedder.embed(['x', 'y', 'x']);
    await vi.advanceTimersByTimeAsync(0);
    expect((await first).map((v) => v[1])).toEqual([120, 121, 120]);
    const second = embedder.embed(['y', 'z']);
    await vi.advanceTimersByTimeAsync(0);
    expect((await second).map((v) => v[1])).toEqual([121, 122]);
    expect(r.runs).toEqual([['x', 'y'], ['z']]);
  });

  it('with the cache off every call runs the model', async () => {
    const r = countingRunner();
    const embedder = createBatchingEmbedder({ modelId: 'fake', dim: 2, runBatch: r.runBatch, batchWindowMs: 0, cacheEntries: 0 });
    for (let i = 0; i < 2; i++) {
      const p = embedder.embed(['x']);
      await vi.advanceTimersByTimeAsync(0);
      await p;
    }
    expect(r.runs).toEqual([['x'], ['x']]);
  });

  it('a failed run caches nothing and the next call retries', async () => {
    const r = countingRunner();
    const embedder = createBatchingEmbedder({ modelId: 'fake', dim: 2, runBatch: r.runBatch, batchWindowMs: 0 });
    r.failOnce();
    const failed = embedder.embed(['x']).catch((e: unknown) => (e as Error).message);
    await vi.advanceTimersByTimeAsync(0);
    expect(await failed).toBe('model crashed');
    const retry = embedder.embed(['x']);
    await vi.advanceTimersByTimeAsync(0);
    expect(Array.from((await retry)[0]!)).toEqual([1, 120]);
    expect(r.runs).toEqual([['x'], ['x']]);
  });

  it('a vector of the wrong length is an internal error', async () => {
    const embedder = createBatchingEmbedder({ modelId: 'fake', dim: 3, runBatch: async (t) => t.map(() => new Float32Array(2)), batchWindowMs: 0 });
    const p = embedder.embed(['x']);
    const settled = p.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(0);
    expect(await settled).toMatchObject({ code: ErrorCode.Internal });
  });

  it('close() runs onClose once and fails later calls with unavailable', async () => {
    const onClose = vi.fn(async () => {});
    const embedder = createBatchingEmbedder({ modelId: 'fake', dim: 2, runBatch: countingRunner().runBatch, onClose });
    await Promise.all([embedder.close(), embedder.close()]);
    expect(onClose).toHaveBeenCalledTimes(1);
    await expect(embedder.embed(['x'])).rejects.toMatchObject({ code: ErrorCode.Unavailable });
  });
});
