import { describe, expect, it } from 'vitest';
import type { JobEvent } from './job-events.ts';
import { JobManager, type JobContext } from './job-manager.ts';

/** A runner whose jobs finish when the test says so. */
function gatedRunner() {
  const gates = new Map<string, { resolve: () => void; reject: (e: Error) => void; ctx: JobContext }>();
  const started: string[] = [];
  const run = (_config: { n: number }, ctx: JobContext) =>
    new Promise<void>((resolve, reject) => {
      started.push(ctx.id);
      gates.set(ctx.id, { resolve, reject, ctx });
      ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error));
    });
  return { run, gates, started };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('JobManager', () => {
  it('runs jobs one at a time in submission order and reports their states', async () => {
    const r = gatedRunner();
    const events: JobEvent[] = [];
    const jobs = new JobManager({ run: r.run, onEvent: (e) => events.push(e) });
    jobs.submit({ n: 1 }, 'a', 'a');
    jobs.submit({ n: 2 }, 'b', 'b');
    expect(r.started).toEqual(['a']);
    expect(jobs.get('b').state).toBe('queued');
    r.gates.get('a')!.resolve();
    await tick();
    expect(jobs.get('a').state).toBe('succeeded');
    expect(r.started).toEqual(['a', 'b']);
    r.gates.get('b')!.reject(new Error('reward service gone'));
    await tick();
    expect(jobs.get('b')).toMatchObject({ state: 'failed', error: 'reward service gone' });
    expect(events.filter((e) => e.type === 'state').map((e) => `${e.job}:${(e as { state: string }).state}`)).toEqual([
      'a:queued',
      'a:running',
      'b:queued',
      'a:succeeded',
      'b:running',
      'b:failed',
    ]);
  });

  it('keeps step metrics and feeds subscribers', async () => {
    const r = gatedRunner();
    const jobs = new JobManager({ run: r.run });
    jobs.submit({ n: 1 }, 'a', 'a');
    const seen: number[] = [];
    const stop = jobs.subscribe('a', (e) => e.type === 'step' && seen.push(e.step));
    const ctx = r.gates.get('a')!.ctx;
    ctx.emit({ type: 'step', job: 'a', step: 1, total_steps: 2, metrics: { step: 1, 'critic/score/mean': 0.5 } });
    stop();
    ctx.emit({ type: 'step', job: 'a', step: 2, total_steps: 2, metrics: { step: 2, 'critic/score/mean': 0.7 } });
    expect(seen).toEqual([1]);
    expect(jobs.metrics('a').map((m) => m['critic/score/mean'])).toEqual([0.5, 0.7]);
    expect(jobs.get('a')).toMatchObject({ step: 2, total_steps: 2 });
  });

  it('cancels queued and running jobs', async () => {
    const r = gatedRunner();
    const jobs = new JobManager({ run: r.run });
    jobs.submit({ n: 1 }, 'a', 'a');
    jobs.submit({ n: 2 }, 'b', 'b');
    expect(jobs.cancel('b').state).toBe('cancelled');
    jobs.cancel('a');
    await tick();
    expect(jobs.get('a').state).toBe('cancelled');
    expect(r.started).toEqual(['a']);
  });

  it('answers unknown ids with not_found and duplicate ids with a conflict', () => {
    const jobs = new JobManager({ run: gatedRunner().run });
    expect(() => jobs.get('nope')).toThrow(expect.objectContaining({ code: 'not_found', status: 404 }));
    jobs.submit({ n: 1 }, 'a', 'a');
    expect(() => jobs.submit({ n: 1 }, 'a', 'a')).toThrow(expect.objectContaining({ status: 409 }));
  });
});
