import { describe, expect, it } from 'vitest';
import { Semaphore } from './semaphore.ts';

describe('Semaphore', () => {
  it('admits at most `limit` holders and serves waiters in order', async () => {
    const s = new Semaphore(2);
    const order: number[] = [];
    const [r1, r2] = await Promise.all([s.acquire(), s.acquire()]);
    const third = s.acquire().then((r) => (order.push(3), r));
    const fourth = s.acquire().then((r) => (order.push(4), r));
    expect([s.held, s.waiting]).toEqual([2, 2]);
    r2();
    r2(); // a second release of the same slot is ignored
    (await third)();
    r1();
    (await fourth)();
    expect(order).toEqual([3, 4]);
    expect([s.held, s.waiting]).toEqual([0, 0]);
  });

  it('drops a waiter whose signal aborts', async () => {
    const s = new Semaphore(1);
    const release = await s.acquire();
    const ctl = new AbortController();
    const waiting = s.acquire(ctl.signal);
    ctl.abort(new Error('cancelled'));
    await expect(waiting).rejects.toThrow('cancelled');
    expect(s.waiting).toBe(0);
    release();
    expect(s.held).toBe(0);
  });
});
