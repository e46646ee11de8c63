import { describe, expect, it } from 'vitest';
import { runPool } from './run-pool.ts';

const tick = () => new Promise<void>((r) => setImmediate(r));

describe('runPool', () => {
  it('runs every task and the tasks they push, at most `concurrency` at once', async () => {
    let inFlight = 0;
    let peak = 0;
    const done: number[] = [];
    await runPool([1, 2, 3], 2, async (n, push) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await tick();
      if (n < 10) push(n * 10);
      done.push(n);
      inFlight--;
    });
    expect(done.sort((a, b) => a - b)).toEqual([1, 2, 3, 10, 20, 30]);
    expect(peak).toBe(2);
  });

  it('the first failure aborts the tasks in flight, skips the rest, and rejects with it once they settle', async () => {
    const boom = new Error('boom');
    const started: number[] = [];
    let sawAbort = false;
    const gate = Promise.withResolvers<void>();
    const run = runPool([1, 2, 3, 4], 2, async (n, _push, signal) => {
      started.push(n);
      if (n === 1) {
        await gate.promise;
        sawAbort = signal.aborted;
        return;
      }
      throw boom;
    });
    await tick();
    gate.resolve();
    await expect(run).rejects.toBe(boom);
    expect(started).toEqual([1, 2]);
    expect(sawAbort).toBe(true);
  });

  it('rejects with the parent signal’s reason when it aborts', async () => {
    const ctl = new AbortController();
    const reason = new Error('cancelled');
    const run = runPool(
      [1, 2],
      1,
      async () => {
        ctl.abort(reason);
      },
      ctl.signal,
    );
    await expect(run).rejects.toBe(reason);
  });

  it('an empty list resolves at once', async () => {
    await expect(runPool([], 4, async () => {})).resolves.toBeUndefined();
  });
});
