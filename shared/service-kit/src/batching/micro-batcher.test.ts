import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ErrorCode } from '../errors.ts';
import { MicroBatcher } from './micro-batcher.ts';

/** A runner whose every call waits on its own gate; records what each run got. */
function gatedRunner(fail: (items: readonly string[]) => boolean = () => false) {
  const runs: string[][] = [];
  const gates: Array<() => void> = [];
  const runBatch = async (items: readonly string[]) => {
    runs.push([...items]);
    const gate = Promise.withResolvers<void>();
    gates.push(gate.resolve);
    await gate.promise;
    if (fail(items)) throw new Error(`batch failed: ${items.join(',')}`);
    return items.map((s) => s.toUpperCase());
  };
  /** Opens the gate of run `i` and lets the promise chains settle. */
  const release = async (i: number) => {
    gates[i]?.();
    await vi.advanceTimersByTimeAsync(0);
  };
  return { runs, runBatch, release };
}

describe('MicroBatcher: windows, splitting, aborts, close (fake timers)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('merges calls made within the window into one run and routes results back in order', async () => {
    const r = gatedRunner();
    const batcher = new MicroBatcher({ run: r.runBatch, maxBatch: 16, windowMs: 5 });
    const a = batcher.submit(['a']);
    const b = batcher.submit(['b', 'c']);
    const c = batcher.submit(['d']);
    await vi.advanceTimersByTimeAsync(4);
    expect(r.runs).toEqual([]); // still inside the window
    await vi.advanceTimersByTimeAsync(1);
    expect(r.runs).toEqual([['a', 'b', 'c', 'd']]);
    await r.release(0);
    expect(await a).toEqual(['A']);
    expect(await b).toEqual(['B', 'C']);
    expect(await c).toEqual(['D']);
  });

  it('a zero window still merges the calls of one tick', async () => {
    const r = gatedRunner();
    const batcher = new MicroBatcher({ run: r.runBatch, maxBatch: 16, windowMs: 0 });
    const calls = [batcher.submit(['a']), batcher.submit(['b'])];
    expect(r.runs).toEqual([]);
    await vi.advanceTimersByTimeAsync(0);
    expect(r.runs).toEqual([['a', 'b']]);
    await r.release(0);
    expect(await Promise.all(calls)).toEqual([['A'], ['B']]);
  });

  it('runs at once when maxBatch items are waiting, without waiting for the window', async () => {
    const r = gatedRunner();
    const batcher = new MicroBatcher({ run: r.runBatch, maxBatch: 3, windowMs: 60_000 });
    const a = batcher.submit(['a', 'b']);
    expect(r.runs).toEqual([]);
    const b = batcher.submit(['c', 'd']);
    expect(r.runs).toEqual([['a', 'b', 'c']]);
    await r.release(0);
    // 'd' waited through the first run, so it goes next without another window.
    expect(r.runs).toEqual([['a', 'b', 'c'], ['d']]);
    await r.release(1);
    expect(await a).toEqual(['A', 'B']);
    expect(await b).toEqual(['C', 'D']);
  });

  it('queues calls arriving during a run and sends them together as the next run', async () => {
    const r = gatedRunner();
    const batcher = new MicroBatcher({ run: r.runBatch, maxBatch: 8, windowMs: 1 });
    const first = batcher.submit(['a']);
    await vi.advanceTimersByTimeAsync(1);
    const later = [batcher.submit(['b']), batcher.submit(['c']), batcher.submit(['d'])];
    await vi.advanceTimersByTimeAsync(10);
    expect(r.runs).toEqual([['a']]); // one run at a time
    expect(batcher.queued).toBe(3);
    await r.release(0);
    expect(r.runs).toEqual([['a'], ['b', 'c', 'd']]);
    await r.release(1);
    expect(await first).toEqual(['A']);
    expect(await Promise.all(later)).toEqual([['B'], ['C'], ['D']]);
  });

  it('a failed run fails only the callers with items in it', async () => {
    const r = gatedRunner((items) => items.includes('bad'));
    const batcher = new MicroBatcher({ run: r.runBatch, maxBatch: 2, windowMs: 1 });
    const ok1 = batcher.submit(['x']);
    const bad = batcher.submit(['bad']);
    const ok2 = batcher.submit(['y']);
    const badSettled = bad.then(
      () => 'resolved',
      (err: unknown) => (err as Error).message,
    );
    const ok1Settled = ok1.catch((err: unknown) => (err as Error).message);
    expect(r.runs).toEqual([['x', 'bad']]);
    await r.release(0);
    expect(await badSettled).toBe('batch failed: x,bad');
    expect(await ok1Settled).toBe('batch failed: x,bad');
    expect(r.runs).toEqual([['x', 'bad'], ['y']]);
    await r.release(1);
    expect(await ok2).toEqual(['Y']);
  });

  it('splits a request larger than maxBatch across runs and reassembles it in order', async () => {
    const r = gatedRunner();
    const batcher = new MicroBatcher({ run: r.runBatch, maxBatch: 2, windowMs: 1 });
    const all = batcher.submit(['a', 'b', 'c', 'd', 'e']);
    expect(r.runs).toEqual([['a', 'b']]);
    await r.release(0);
    await r.release(1);
    await vi.advanceTimersByTimeAsync(1);
    await r.release(2);
    expect(r.runs).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect(await all).toEqual(['A', 'B', 'C', 'D', 'E']);
  });

  it('an abort rejects with the signal reason and drops the queued items', async () => {
    const r = gatedRunner();
    const batcher = new MicroBatcher({ run: r.runBatch, maxBatch: 8, windowMs: 1 });
    const first = batcher.submit(['a']);
    await vi.advanceTimersByTimeAsync(1);
    const controller = new AbortController();
    const aborted = batcher.submit(['b', 'c'], { signal: controller.signal });
    const kept = batcher.submit(['d']);
    const reason = new Error('caller gave up');
    controller.abort(reason);
    await expect(aborted).rejects.toBe(reason);
    expect(batcher.queued).toBe(1);
    await r.release(0);
    expect(r.runs).toEqual([['a'], ['d']]);
    await r.release(1);
    expect(await first).toEqual(['A']);
    expect(await kept).toEqual(['D']);
  });

  it('an already aborted signal never queues anything', async () => {
    const r = gatedRunner();
    const batcher = new MicroBatcher({ run: r.runBatch });
    const reason = new Error('too late');
    await expect(batcher.submit(['a'], { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    await vi.advanceTimersByTimeAsync(100);
    expect(r.runs).toEqual([]);
  });

  it('an abort during the run discards that caller only', async () => {
    const r = gatedRunner();
    const batcher = new MicroBatcher({ run: r.runBatch, maxBatch: 8, windowMs: 1 });
    const controller = new AbortController();
    const aborted = batcher.submit(['a'], { signal: controller.signal });
    const kept = batcher.submit(['b']);
    await vi.advanceTimersByTimeAsync(1);
    controller.abort(new Error('stop'));
    await expect(aborted).rejects.toThrow('stop');
    await r.release(0);
    expect(await kept).toEqual(['B']);
  });

  it('close() rejects queued work with unavailable and refuses new work', async () => {
    const r = gatedRunner();
    const batcher = new MicroBatcher({ run: r.runBatch, windowMs: 10 });
    const queued = batcher.submit(['a']);
    batcher.close();
    await expect(queued).rejects.toMatchObject({ code: ErrorCode.Unavailable });
    await expect(batcher.submit(['b'])).rejects.toMatchObject({ code: ErrorCode.Unavailable });
    await vi.advanceTimersByTimeAsync(100);
    expect(r.runs).toEqual([]);
  });

  it('empty input resolves to an empty list without a run', async () => {
    const r = gatedRunner();
    const batcher = new MicroBatcher({ run: r.runBatch });
    expect(await batcher.submit([])).toEqual([]);
    expect(r.runs).toEqual([]);
  });

  it('rejects a runner that returns the wrong number of results', async () => {
    const batcher = new MicroBatcher({ run: async () => ['only one'], maxBatch: 2, windowMs: 0 });
    const p = batcher.submit(['a', 'b']);
    await expect(p).rejects.toMatchObject({ code: ErrorCode.Internal });
  });
});

/** Records each run (key and items) and holds it on its own gate. */
function keyedRecorder(maxBatch: number) {
  const calls: Array<{ key: string; items: number[] }> = [];
  const gates: Array<PromiseWithResolvers<void>> = [];
  const batcher = new MicroBatcher<number, number>({
    maxBatch,
    windowMs: 0,
    run: async (items, key) => {
      calls.push({ key, items: [...items] });
      const gate = Promise.withResolvers<void>();
      gates.push(gate);
      await gate.promise;
      return items.map((i) => i * 10);
    },
  });
  const submit = (key: string, item: number, signal?: AbortSignal) => batcher.submit([item], { key, ...(signal && { signal }) }).then(([r]) => r);
  return { batcher, submit, calls, gates };
}
const tick = () => new Promise<void>((r) => setImmediate(r));

describe('MicroBatcher: keys and cost (setImmediate ticks)', () => {
  it('batches what is submitted together, per key, and answers each item in order', async () => {
    const { submit, calls, gates } = keyedRecorder(8);
    const results = [submit('a', 1), submit('a', 2), submit('b', 3)];
    await tick();
    expect(calls).toEqual([{ key: 'a', items: [1, 2] }]);
    gates[0]?.resolve();
    await tick();
    expect(calls[1]).toEqual({ key: 'b', items: [3] });
    gates[1]?.resolve();
    expect(await Promise.all(results)).toEqual([10, 20, 30]);
  });

  it('collects requests that arrive while a batch runs into the next one, up to maxBatch', async () => {
    const { submit, calls, gates } = keyedRecorder(2);
    const first = submit('k', 1);
    await tick();
    const later = [2, 3, 4].map((i) => submit('k', i));
    gates[0]?.resolve();
    await first;
    await tick();
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 3]]);
    gates[1]?.resolve();
    await tick();
    gates[2]?.resolve();
    expect(await Promise.all(later)).toEqual([20, 30, 40]);
  });

  it('keys take turns, so a busy key does not starve another', async () => {
    const { submit, calls, gates } = keyedRecorder(1);
    const first = submit('x', 0);
    const all = [submit('a', 1), submit('a', 2), submit('b', 3)];
    for (let i = 0; i < 4; i++) {
      await tick();
      gates[i]?.resolve();
    }
    expect(await Promise.all([first, ...all])).toEqual([0, 10, 20, 30]);
    expect(calls.map((c) => c.key)).toEqual(['x', 'a', 'b', 'a']);
  });

  it('withdraws an aborted item that is still queued', async () => {
    const { batcher, submit, calls, gates } = keyedRecorder(4);
    const first = submit('k', 1);
    await tick();
    const ctl = new AbortController();
    const dropped = submit('k', 2, ctl.signal);
    ctl.abort(new Error('gone'));
    await expect(dropped).rejects.toThrow('gone');
    expect(batcher.queued).toBe(0);
    gates[0]?.resolve();
    await first;
    expect(calls).toHaveLength(1);
  });

  it('rejects every item of a failing batch', async () => {
    const batcher = new MicroBatcher<number, number>({ maxBatch: 4, windowMs: 0, run: async () => Promise.reject(new Error('model failed')) });
    await expect(Promise.all([batcher.submit([1]), batcher.submit([2])])).rejects.toThrow('model failed');
  });

  it('keeps a batch within maxBatchCost, but always takes at least one item', async () => {
    const sizes: number[][] = [];
    const batcher = new MicroBatcher<number, number>({
      maxBatch: 10,
      windowMs: 0,
      cost: (i) => i,
      maxBatchCost: 10,
      run: async (items) => (sizes.push([...items]), items),
    });
    await Promise.all([4, 5, 3, 20, 2].map((i) => batcher.submit([i], { key: 'k' })));
    expect(sizes).toEqual([[4, 5], [3], [20], [2]]);
  });

  it('runs up to maxConcurrentRuns batches at once', async () => {
    const running: number[][] = [];
    const gates: Array<() => void> = [];
    const batcher = new MicroBatcher<number, number>({
      maxBatch: 1,
      windowMs: 0,
      maxConcurrentRuns: 2,
      run: async (items) => {
        running.push([...items]);
        await new Promise<void>((r) => gates.push(r));
        return items;
      },
    });
    const all = [1, 2, 3].map((i) => batcher.submit([i]));
    await tick();
    expect(running).toEqual([[1], [2]]);
    gates[0]?.();
    await tick();
    expect(running).toEqual([[1], [2], [3]]);
    gates.forEach((g) => g());
    expect(await Promise.all(all)).toEqual([[1], [2], [3]]);
  });
});
