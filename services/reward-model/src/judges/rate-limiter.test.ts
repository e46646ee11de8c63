import { describe, expect, it } from 'vitest';
import { JudgeLimiter, type LimiterClock } from './rate-limiter.ts';
import { TokenBucket } from './token-bucket.ts';

describe('TokenBucket', () => {
  it('starts full, then hands out reservations spaced by the rate', () => {
    const b = new TokenBucket(2, 2); // 120 per minute, one second of burst
    expect([b.take(1, 0), b.take(1, 0), b.take(1, 0), b.take(1, 0)]).toEqual([0, 0, 500, 1000]);
    // The last reservation started at 1 s; by 2.5 s the bucket is full again (capped at 2).
    expect([b.take(1, 2500), b.take(1, 2500), b.take(1, 2500)]).toEqual([0, 0, 500]);
  });
  it('refills up to its capacity only', () => {
    const b = new TokenBucket(1, 1);
    expect(b.take(1, 0)).toBe(0);
    expect(b.take(1, 60_000)).toBe(0);
    expect(b.take(1, 60_000)).toBe(1000);
  });
  it('lets a take above the capacity through after the time it needs (verl: negative balance)', () => {
    const b = new TokenBucket(100, 100); // max_tpm 6000
    expect(b.take(2000, 0)).toBe(19_000);
    expect(b.take(1, 0)).toBe(19_010);
  });
  it('sustains exactly its rate over a minute', () => {
    const b = new TokenBucket(10, 10); // max_rpm 600
    let t = 0;
    let sent = 0;
    while (t < 60_000) {
      t += b.take(1, t);
      if (t < 60_000) sent++;
    }
    expect(sent).toBe(600 + 10 - 1);
  });
});

/** A clock whose sleeps wait until the test advances time past their end. */
function fakeClock() {
  let now = 0;
  const sleepers: Array<{ until: number; resolve: () => void }> = [];
  const slept: number[] = [];
  const clock: LimiterClock = {
    now: () => now,
    sleep(ms, signal) {
      slept.push(ms);
      return new Promise((resolve, reject) => {
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
        sleepers.push({ until: now + ms, resolve });
      });
    },
  };
  return {
    clock,
    slept,
    advance(ms: number) {
      now += ms;
      for (const s of sleepers.filter((x) => x.until <= now)) s.resolve();
    },
  };
}

const ticks = async (n = 5) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

describe('JudgeLimiter', () => {
  it('holds requests beyond max_rpm until their turn on the clock', async () => {
    const { clock, slept, advance } = fakeClock();
    const limiter = new JudgeLimiter({ maxConcurrent: 10, maxRpm: 120, tokensPerRequest: 1, clock, name: 't' });
    const started: number[] = [];
    const signal = new AbortController().signal;
    const runs = [0, 1, 2, 3].map((i) => limiter.run(async () => void started.push(i), signal));
    await ticks();
    // One request at once, then one every 500 ms: no burst for a provider's 60 s window to count.
    expect(started).toEqual([0]);
    expect(slept).toEqual([500, 1000, 1500]);
    advance(500);
    await ticks();
    expect(started).toEqual([0, 1]);
    advance(1000);
    await Promise.all(runs);
    expect(started).toEqual([0, 1, 2, 3]);
  });

  it('charges max_tpm the estimated tokens of each request', async () => {
    const { clock, slept } = fakeClock();
    const limiter = new JudgeLimiter({ maxConcurrent: 10, maxTpm: 6000, tokensPerRequest: 250, clock, name: 't' });
    const signal = new AbortController().signal;
    for (let i = 0; i < 3; i++) void limiter.run(async () => {}, signal);
    await ticks();
    // 100 tokens a second, 250 a request.
    expect(slept).toEqual([2500, 5000]);
  });

  it('runs at most max_concurrent at once', async () => {
    const { clock } = fakeClock();
    const limiter = new JudgeLimiter({ maxConcurrent: 2, tokensPerRequest: 1, clock, name: 't' });
    const gates: Array<() => void> = [];
    let running = 0;
    let peak = 0;
    const signal = new AbortController().signal;
    const runs = Array.from({ length: 5 }, () =>
      limiter.run(async () => {
        running++;
        peak = Math.max(peak, running);
        await new Promise<void>((r) => gates.push(r));
        running--;
      }, signal),
    );
    await ticks();
    expect(running).toBe(2);
    while (gates.length > 0 || running > 0) {
      gates.shift()?.();
      await ticks();
    }
    await Promise.all(runs);
    expect(peak).toBe(2);
  });

  it('gives up a rate wait when the signal aborts', async () => {
    const { clock } = fakeClock();
    const limiter = new JudgeLimiter({ maxConcurrent: 1, maxRpm: 60, tokensPerRequest: 1, clock, name: 't' });
    const ac = new AbortController();
    await limiter.run(async () => {}, ac.signal);
    const waiting = limiter.run(async () => 'ran', ac.signal);
    await ticks();
    ac.abort(new Error('deadline'));
    await expect(waiting).rejects.toThrow('deadline');
  });
});
