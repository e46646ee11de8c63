import { AppError } from '@rl/service-kit/core';
import { describe, expect, it } from 'vitest';
import { type Admission, AdmissionQueue, type QueueTimer } from './admission-queue.ts';

/** A run that finishes when the test says so. */
function gate() {
  const g = Promise.withResolvers<void>();
  return { done: g.resolve, fn: () => g.promise };
}
const settle = () => new Promise((r) => setImmediate(r));

/** An admission whose limit the test sets, recording what it was told. */
function fixedAdmission(limit: number, adaptive = true) {
  const a = {
    limitNow: limit,
    notes: [] as number[],
    adaptive,
    sampleMs: 100,
    limit: () => a.limitNow,
    note: (n: number) => void a.notes.push(n),
  };
  return a satisfies Admission;
}

/** A manual timer: `fire()` runs what is due. */
function manualTimer() {
  let pending: Array<{ fn: () => void; live: boolean }> = [];
  const timer: QueueTimer = (_ms, fn) => {
    const entry = { fn, live: true };
    pending.push(entry);
    return () => void (entry.live = false);
  };
  return {
    timer,
    get armed() {
      return pending.filter((p) => p.live).length;
    },
    fire() {
      const due = pending;
      pending = [];
      for (const p of due) if (p.live) p.fn();
    },
  };
}

describe('AdmissionQueue', () => {
  it('admits up to the limit and starts waiters in FIFO order as runs end', async () => {
    const adm = fixedAdmission(2);
    const t = manualTimer();
    const q = new AdmissionQueue({ admission: adm, maxQueued: 10, timer: t.timer });
    const started: number[] = [];
    const gates = [gate(), gate(), gate(), gate()];
    const runs = gates.map((g, i) =>
      q.run(async () => {
        started.push(i);
        await g.fn();
        return i;
      }),
    );
    await settle();
    expect(started).toEqual([0, 1]);
    expect([q.running, q.queued]).toEqual([2, 2]);
    gates[1]!.done();
    await runs[1];
    await settle();
    expect(started).toEqual([0, 1, 2]);
    gates.forEach((g) => g.done());
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
    expect([q.running, q.queued]).toEqual([0, 0]);
    expect(adm.notes).toEqual([1, 2, 1, 2, 1, 2, 1, 0]);
  });

  it('lets waiting runs in when the limit rises, on the re-check timer', async () => {
    const adm = fixedAdmission(1);
    const t = manualTimer();
    const q = new AdmissionQueue({ admission: adm, timer: t.timer });
    const gates = [gate(), gate(), gate()];
    const runs = gates.map((g) => q.run(g.fn));
    expect([q.running, q.queued, t.armed]).toEqual([1, 2, 1]);
    t.fire();
    expect([q.running, q.queued, t.armed]).toEqual([1, 2, 1]); // same limit: still waiting, checked again later
    adm.limitNow = 3;
    t.fire();
    expect([q.running, q.queued, t.armed]).toEqual([3, 0, 0]);
    gates.forEach((g) => g.done());
    await Promise.all(runs);
  });

  it('arms no re-check under a fixed limit', () => {
    const t = manualTimer();
    const q = new AdmissionQueue({ admission: fixedAdmission(1, false), timer: t.timer });
    const g = gate();
    void q.run(g.fn);
    void q.run(async () => 1);
    expect([q.queued, t.armed]).toEqual([1, 0]);
    g.done();
  });

  it('refuses with a retryable busy error when the queue is full (none queued: as soon as the limit is reached)', async () => {
    const q = new AdmissionQueue({ admission: fixedAdmission(1), maxQueued: 0, name: 'sandbox', timer: manualTimer().timer });
    const g = gate();
    const a = q.run(g.fn);
    const err = await q.run(async () => 'b').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('busy');
    expect((err as AppError).retryable).toBe(true);
    expect((err as AppError).message).toBe('sandbox busy: 1 running and 0 queued');
    g.done();
    await a;
    expect(await q.run(async () => 'c')).toBe('c');
  });

  it('withdraws a waiting run on abort, and keeps a started one until it settles', async () => {
    const q = new AdmissionQueue({ admission: fixedAdmission(1), maxQueued: 5, timer: manualTimer().timer });
    const g = gate();
    const started = new AbortController();
    const first = q.run(g.fn, started.signal);
    const waiting = new AbortController();
    let ran = false;
    const second = q.run(async () => void (ran = true), waiting.signal);
    waiting.abort(new Error('gone'));
    await expect(second).rejects.toThrow('gone');
    started.abort(new Error('late'));
    expect([q.running, q.queued]).toEqual([1, 0]);
    g.done();
    await first;
    expect([q.running, ran]).toEqual([0, false]);
    await expect(q.run(async () => 1, AbortSignal.abort(new Error('before')))).rejects.toThrow('before');
  });

  it('frees the place of a run that throws synchronously or rejects', async () => {
    const q = new AdmissionQueue({ admission: fixedAdmission(1), timer: manualTimer().timer });
    await expect(
      q.run(() => {
        throw new Error('sync');
      }),
    ).rejects.toThrow('sync');
    await expect(q.run(() => Promise.reject(new Error('async')))).rejects.toThrow('async');
    expect(await q.run(async () => 'ok')).toBe('ok');
    expect(q.running).toBe(0);
  });
});
