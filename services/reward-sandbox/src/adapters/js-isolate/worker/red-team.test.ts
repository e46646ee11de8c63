// Attacks that used to get through the isolate fast path when its isolates lived
// in the service process, each run against real worker processes. Synchronised on
// the pool's lifecycle events, never on sleeps; the only clock assertion is the
// 2 s bound the fast path promises after a worker is killed.

import { BoundedQueue } from '@rl/service-kit';
import { afterAll, describe, expect, it } from 'vitest';
import { createExecutor } from '../../../core/executor.ts';
import { testRunSpec } from '../../../core/testing/run-spec.ts';
import type { RunSpec, Runner } from '../../../core/runner.ts';
import { IsolateRunner, type WorkerEvent } from '../index.ts';
import { testIsolateRunner } from '../testing/runner.ts';
import { JsWorkerErrorCode } from './errors.ts';

type Exited = Extract<WorkerEvent, { type: 'exited' }>;

/** Collects a runner's worker events; `next` resolves on the first (past or future) event that matches. */
function workerEvents() {
  const seen: WorkerEvent[] = [];
  const waiters: Array<{ match: (e: WorkerEvent) => boolean; resolve: (e: WorkerEvent) => void }> = [];
  return {
    seen,
    onWorkerEvent(event: WorkerEvent): void {
      seen.push(event);
      for (const w of waiters.splice(0)) {
        if (w.match(event)) w.resolve(event);
        else waiters.push(w);
      }
    },
    next<E extends WorkerEvent>(match: (e: WorkerEvent) => e is E, skip = 0): Promise<E> {
      const past = seen.filter(match);
      if (past.length > skip) return Promise.resolve(past[skip] as E);
      let left = skip - past.length;
      return new Promise((resolve) => {
        waiters.push({ match: (e) => match(e) && left-- === 0, resolve: (e) => resolve(e as E) });
      });
    },
  };
}

const killedFor =
  (reasons: string[]) =>
  (e: WorkerEvent): e is Exited =>
    e.type === 'exited' && e.killedFor !== null && reasons.includes(e.killedFor);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

const signal = () => new AbortController().signal;
const hello = testRunSpec('nodejs', 'console.log("hello")');
// Fills an array, writes a marker line (it reaches the worker's output channel at
// once, see output-channel.ts), then sorts it natively, ignoring termination; the
// 2 s limit must fall in the sort. Unloaded, all 320 MB fill in about 0.3 s and
// sort in about 4.5 s (240 MB took 0.2 s and 3.5 s). On a loaded host both slow
// down alike (7 s and 96 s for 240 MB at load 20), so the fill stops, chunk by chunk,
// once a third of the time the program has left is used (performance.now() counts
// from the run's start), and only the filled part is sorted: some fifteen times
// the fill at the same speed, well past the limit.
const SORT_LIMIT_MS = 2000;
const NATIVE_SORT = `const a = new Float64Array(4e7);
const start = performance.now();
const stopAt = start + (${SORT_LIMIT_MS} - start) / 3;
let n = 0;
do {
  const end = Math.min(a.length, n + (1 << 20));
  for (let i = n; i < end; i++) a[i] = ((i * 40503) & 0xfffff) ^ i;
  n = end;
} while (n < a.length && performance.now() < stopAt);
process.stdout.write('sorting\\n');
a.subarray(0, n).sort();
console.log('sorted');`;
const sortSpec: RunSpec = testRunSpec('nodejs', NATIVE_SORT, { runTimeoutMs: SORT_LIMIT_MS, memoryLimitMb: 512 });

describe('a worker started for a memory bucket', () => {
  const events = workerEvents();
  const runner = testIsolateRunner({ warmMemoryMb: [64], onWorkerEvent: events.onWorkerEvent });
  afterAll(() => runner.close());

  it('still caps the heap at the run limit inside a worker started for a larger one', async () => {
    const bomb = 'const a = []; while (true) a.push(new Array(1e5).fill(1.5));';
    const r = (await runner.run(testRunSpec('nodejs', bomb, { memoryLimitMb: 40 }), signal())).run_result;
    expect(r).toMatchObject({ status: 'Finished', return_code: 134, memory_limit_exceeded: true });
    expect(r?.stderr).toContain('sandbox memory limit of 40 MiB reached');
    expect(events.seen.filter((e) => e.type === 'started').every((e) => e.memoryMb === 64)).toBe(true);
    // The worker's address-space limit stays as a backstop (the isolate has no WebAssembly: memory-bound.test.ts).
    const started = await events.next((e): e is Extract<WorkerEvent, { type: 'started' }> => e.type === 'started' && e.memoryMb === 64);
    expect(started.limitBytes).toBeGreaterThan(0);
  }, 120_000);
});

describe('a native sort that ignores termination', () => {
  it('is a TimeLimitExceeded; its worker is killed and replaced, and hello world answers within 10 s', async () => {
    const events = workerEvents();
    const runner = testIsolateRunner({ warmMemoryMb: [512], onWorkerEvent: events.onWorkerEvent });
    try {
      const r = (await runner.run(sortSpec, signal())).run_result;
      expect(r).toMatchObject({ status: 'TimeLimitExceeded', return_code: null });
      // The sort had started: the marker written before it came back.
      expect(r?.stdout?.startsWith('sorting\n')).toBe(true);
      const answeredAt = performance.now();
      const exited = await events.next(killedFor(['stuck', 'deadline']));
      expect(alive(exited.pid)).toBe(false);
      const next = (await runner.run({ ...hello, memoryLimitMb: 512 }, signal())).run_result;
      expect(next).toMatchObject({ status: 'Finished', return_code: 0, stdout: 'hello\n' });
      // Generous: a fresh worker's start on a loaded 2-core host; what it rules out is a
      // run that waits for the stuck worker (or a recycle time-out) before it is served.
      expect(performance.now() - answeredAt).toBeLessThan(10_000);
      expect(runner.workerPids()).not.toContain(exited.pid);
    } finally {
      await runner.close();
    }
  }, 120_000);

  it('five times in a row still leaves JavaScript on the fast path', async () => {
    const events = workerEvents();
    const nativeRuns: string[] = [];
    const native: Runner = {
      name: 'bwrap',
      languages: () => ['nodejs', 'typescript'],
      run: async (spec) => {
        nativeRuns.push(spec.code);
        throw new Error('the native sandbox is not part of this test');
      },
    };
    const fast = new IsolateRunner({ warmMemoryMb: [512], workerStartTimeoutMs: 60_000, onWorkerEvent: events.onWorkerEvent });
    const executor = createExecutor(native, new BoundedQueue({ concurrency: 2, maxQueued: 10 }), [fast]);
    try {
      for (let round = 0; round < 5; round++) {
        const r = (await executor.run(sortSpec)).run_result;
        expect(r?.status).toBe('TimeLimitExceeded');
        await events.next(killedFor(['stuck', 'deadline']), round);
        expect(fast.canRun({ ...hello, memoryLimitMb: 512 })).toBe(true);
        const next = (await executor.run({ ...hello, memoryLimitMb: 512 })).run_result;
        expect(next?.stdout).toBe('hello\n');
      }
      expect(nativeRuns).toEqual([]);
      expect(events.seen.filter(killedFor(['stuck', 'deadline']))).toHaveLength(5);
    } finally {
      await fast.close();
    }
  }, 240_000);
});

describe('a worker that does not answer by deadline + grace', () => {
  it('is SIGKILLed by the service, and the output it sent before is in the response', async () => {
    const events = workerEvents();
    // A grace shorter than the worker's own 250 ms watchdog: the service's kill comes first.
    const runner = testIsolateRunner({ warmMemoryMb: [512], killGraceMs: 50, onWorkerEvent: events.onWorkerEvent });
    try {
      const r = (await runner.run(sortSpec, signal())).run_result;
      expect(r).toMatchObject({ status: 'TimeLimitExceeded', return_code: null, stderr: '' });
      expect(r?.stdout).toBe('sorting\n');
      const exited = await events.next(killedFor(['deadline']));
      expect(exited.signal).toBe('SIGKILL');
      expect(alive(exited.pid)).toBe(false);
    } finally {
      await runner.close();
    }
  }, 120_000);
});

describe('closing the runner', () => {
  it('kills every worker process, busy or idle, and fails the run in progress', async () => {
    const events = workerEvents();
    const runner = testIsolateRunner({ spareWorkers: 2, warmMemoryMb: [128], onWorkerEvent: events.onWorkerEvent });
    const isStarted = (e: WorkerEvent): e is Extract<WorkerEvent, { type: 'started' }> => e.type === 'started';
    await events.next(isStarted, 1);
    expect((await runner.run(hello, signal())).run_result?.stdout).toBe('hello\n');
    const busy = runner.run(testRunSpec('nodejs', 'while (true) {}', { runTimeoutMs: 30_000 }), signal()).catch((err: unknown) => err);
    const pids = runner.workerPids();
    expect(pids.length).toBeGreaterThanOrEqual(2);
    await runner.close();
    expect(await busy).toMatchObject({ code: JsWorkerErrorCode.Closed });
    expect(pids.filter(alive)).toEqual([]);
    expect(runner.workerPids()).toEqual([]);
  });
});
