import { describe, expect, it } from 'vitest';
import { retry, sleepMs } from './retry.ts';

class Transient extends Error {}
class Fatal extends Error {}

/** An attempt that fails with each error of `failures` in turn, then returns 'ok'. */
function flaky(failures: Error[]) {
  const calls: number[] = [];
  const attempt = async (n: number) => {
    calls.push(n);
    const err = failures[n - 1];
    if (err !== undefined) throw err;
    return 'ok';
  };
  return { attempt, calls };
}

const policy = (sleeps: number[]) => ({
  retries: 3,
  isRetryable: (e: unknown) => e instanceof Transient,
  delayMs: (attempt: number) => 100 * 2 ** (attempt - 1),
  sleep: async (ms: number) => {
    sleeps.push(ms);
  },
});

describe('retry', () => {
  it('retries retryable failures with the caller’s delays and returns the first success', async () => {
    const sleeps: number[] = [];
    const infos: Array<{ attempt: number; delayMs: number }> = [];
    const f = flaky([new Transient('a'), new Transient('b')]);
    const out = await retry(f.attempt, { ...policy(sleeps), onRetry: ({ attempt, delayMs }) => infos.push({ attempt, delayMs }) });
    expect(out).toBe('ok');
    expect(f.calls).toEqual([1, 2, 3]);
    expect(sleeps).toEqual([100, 200]);
    expect(infos).toEqual([
      { attempt: 1, delayMs: 100 },
      { attempt: 2, delayMs: 200 },
    ]);
  });

  it('gives up after `retries` more attempts with the last error, without a final wait', async () => {
    const sleeps: number[] = [];
    const last = new Transient('4');
    const f = flaky([new Transient('1'), new Transient('2'), new Transient('3'), last]);
    await expect(retry(f.attempt, policy(sleeps))).rejects.toBe(last);
    expect(f.calls).toEqual([1, 2, 3, 4]);
    expect(sleeps).toEqual([100, 200, 400]);
  });

  it('rejects at once with an error the policy does not retry', async () => {
    const sleeps: number[] = [];
    const fatal = new Fatal('no');
    const f = flaky([new Transient('1'), fatal]);
    await expect(retry(f.attempt, policy(sleeps))).rejects.toBe(fatal);
    expect(f.calls).toEqual([1, 2]);
    expect(sleeps).toEqual([100]);
  });

  it('passes the error to the delay (e.g. a Retry-After)', async () => {
    const sleeps: number[] = [];
    const f = flaky([Object.assign(new Transient('1'), { afterMs: 5000 })]);
    await retry(f.attempt, { ...policy(sleeps), delayMs: (_n, e) => (e as { afterMs: number }).afterMs });
    expect(sleeps).toEqual([5000]);
  });

  it('an abort during a wait rejects with the reason and starts no further attempt', async () => {
    const ctl = new AbortController();
    const reason = new Error('stop');
    const f = flaky([new Transient('1')]);
    const sleep = async (_ms: number, signal?: AbortSignal) => {
      ctl.abort(reason);
      signal?.throwIfAborted();
    };
    await expect(retry(f.attempt, { ...policy([]), sleep, signal: ctl.signal })).rejects.toBe(reason);
    expect(f.calls).toEqual([1]);
  });

  it('an attempt running when the signal fires keeps its own outcome', async () => {
    const ctl = new AbortController();
    const own = new Transient('own');
    const failing = retry(
      async () => {
        ctl.abort(new Error('stop'));
        throw own;
      },
      { ...policy([]), signal: ctl.signal },
    );
    await expect(failing).rejects.toBe(own);
    const ctl2 = new AbortController();
    const done = retry(async () => (ctl2.abort(new Error('stop')), 'finished'), { ...policy([]), signal: ctl2.signal });
    await expect(done).resolves.toBe('finished');
  });

  it('a thrown non-Error comes back as it was thrown', async () => {
    await expect(retry(async () => Promise.reject('plain'), policy([]))).rejects.toBe('plain');
  });

  it('an already aborted signal never calls the attempt', async () => {
    const reason = new Error('late');
    const f = flaky([]);
    await expect(retry(f.attempt, { ...policy([]), signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(f.calls).toEqual([]);
  });
});

describe('sleepMs', () => {
  it('rejects with the signal’s reason when aborted', async () => {
    const ctl = new AbortController();
    const reason = new Error('gone');
    const wait = sleepMs(60_000, ctl.signal);
    ctl.abort(reason);
    await expect(wait).rejects.toBe(reason);
  });
});
