import { describe, expect, it } from 'vitest';
import { AnswerCache } from './answer-cache.ts';

const open = new AbortController().signal;

/** A load the test settles by hand, counting its calls. */
function gatedLoad() {
  let calls = 0;
  let settle: { resolve: (t: string) => void; reject: (e: unknown) => void } | undefined;
  const load = () => {
    calls++;
    return new Promise<string>((resolve, reject) => {
      settle = { resolve, reject };
    });
  };
  return { load, calls: () => calls, resolve: (t: string) => settle?.resolve(t), reject: (e: unknown) => settle?.reject(e) };
}

describe('AnswerCache', () => {
  it('shares one request in flight, then answers from memory once kept', async () => {
    const cache = new AnswerCache(10);
    const g = gatedLoad();
    const first = cache.answer('k', g.load, open);
    const second = cache.answer('k', g.load, open);
    g.resolve('Score: 7');
    expect(await Promise.all([first, second])).toEqual([
      { text: 'Score: 7', shared: false },
      { text: 'Score: 7', shared: true },
    ]);
    // Not kept yet: the next one asks again.
    const third = cache.answer('k', g.load, open);
    g.resolve('Score: 8');
    expect(await third).toEqual({ text: 'Score: 8', shared: false });
    cache.keep('k', 'Score: 8');
    expect(await cache.answer('k', g.load, open)).toEqual({ text: 'Score: 8', shared: true });
    expect(g.calls()).toBe(2);
  });

  it('gives every sharer the failure of the request, and forgets it', async () => {
    const cache = new AnswerCache(10);
    const g = gatedLoad();
    const both = [cache.answer('k', g.load, open), cache.answer('k', g.load, open)];
    g.reject(new Error('HTTP 500'));
    for (const p of both) await expect(p).rejects.toThrow('HTTP 500');
    const again = cache.answer('k', g.load, open);
    g.resolve('ok');
    expect(await again).toEqual({ text: 'ok', shared: false });
  });

  it('lets a sharer stop waiting when its own signal aborts, without cancelling the request', async () => {
    const cache = new AnswerCache(10);
    const g = gatedLoad();
    const leader = cache.answer('k', g.load, open);
    const ac = new AbortController();
    const follower = cache.answer('k', g.load, ac.signal);
    ac.abort(new Error('follower deadline'));
    await expect(follower).rejects.toThrow('follower deadline');
    g.resolve('Score: 1');
    expect(await leader).toEqual({ text: 'Score: 1', shared: false });
  });

  it('drops the least recently used answer past max_entries', async () => {
    const cache = new AnswerCache(2);
    cache.keep('a', 'A');
    cache.keep('b', 'B');
    await cache.answer('a', () => Promise.reject(new Error('not asked')), open); // a is now the most recent
    cache.keep('c', 'C');
    const g = gatedLoad();
    const b = cache.answer('b', g.load, open);
    g.resolve('B2');
    expect(await b).toEqual({ text: 'B2', shared: false });
    expect(await cache.answer('a', g.load, open)).toEqual({ text: 'A', shared: true });
    expect(await cache.answer('c', g.load, open)).toEqual({ text: 'C', shared: true });
  });
});
