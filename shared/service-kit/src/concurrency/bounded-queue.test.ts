import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.ts';
import { BoundedQueue } from './bounded-queue.ts';

/** A run that finishes when the test says so. */
function gate() {
  const g = Promise.withResolvers<void>();
  return { done: g.resolve, fn: () => g.promise };
}

describe('BoundedQueue', () => {
  it('runs at most `concurrency` at once and starts waiters in FIFO order', async () => {
    const q = new BoundedQueue({ concurrency: 2, maxQueued: 10 });
    const started: number[] = [];
    const gates = [gate(), gate(), gate(), gate()];
    const runs = gates.map((g, i) =>
      q.run(async () => {
        started.push(i);
        await g.fn();
        return i;
      }),
    );
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1]);
    expect([q.running, q.queued]).toEqual([2, 2]);
    gates[1]!.done();
    await runs[1];
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1, 2]);
    gates.forEach((g) => g.done());
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
    expect([q.running, q.queued]).toEqual([0, 0]);
  });

  it('refuses with a retryable busy error when the queue is full', async () => {
    const q = new BoundedQueue({ concurrency: 1, maxQueued: 1 });
    const g = gate();
    const a = q.run(g.fn);
    const b = q.run(async () => 'b');
    const err = await q.run(async () => 'c').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('busy');
    expect((err as AppError).retryable).toBe(true);
    g.done();
    await a;
    expect(await b).toBe('b');
  });

  it('drops a waiter whose signal aborts and keeps the slot order', async () => {
    const q = new BoundedQueue({ concurrency: 1, maxQueued: 5 });
    const g = gate();
    const a = q.run(g.fn);
    const ctl = new AbortController();
    const b = q.run(async () => 'b', ctl.signal);
    const c = q.run(async () => 'c');
    ctl.abort(new Error('gone'));
    await expect(b).rejects.toThrow('gone');
    expect(q.queued).toBe(1);
    g.done();
    await a;
    expect(await c).toBe('c');
  });

  it('frees the slot when a run throws', async () => {
    const q = new BoundedQueue({ concurrency: 1, maxQueued: 1 });
    await expect(
      q.run(async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await q.run(async () => 1)).toBe(1);
  });

  it('keeps a started run in its slot when its caller aborts, until the run settles', async () => {
    const q = new BoundedQueue({ concurrency: 1 });
    const g = gate();
    const ctl = new AbortController();
    const a = q.run(g.fn, ctl.signal);
    const b = q.run(async () => 'b');
    await new Promise((r) => setImmediate(r));
    ctl.abort(new Error('gone'));
    await new Promise((r) => setImmediate(r));
    expect([q.running, q.queued]).toEqual([1, 1]);
    g.done();
    await a;
    expect(await b).toBe('b');
  });

  it('without maxQueued never refuses', async () => {
    const q = new BoundedQueue({ concurrency: 1 });
    const g = gate();
    const runs = [q.run(g.fn), ...Array.from({ length: 100 }, (_, i) => q.run(async () => i))];
    expect(q.queued).toBe(100);
    g.done();
    expect((await Promise.all(runs)).at(-1)).toBe(99);
  });
});
