import { AppError, ErrorCode } from '@rl/shared/errors';
import { describe, expect, it } from 'vitest';
import { scoreBatch, type BatchItem, type ScoreBatchDeps } from './score-batch.ts';

const item = (data_source: string, params?: Record<string, unknown>): BatchItem => ({ data_source, solution_str: 's', ground_truth: 'g', params });

function deps(over: Partial<ScoreBatchDeps> = {}): ScoreBatchDeps & { localCalls: unknown[]; remoteCalls: unknown[] } {
  const localCalls: unknown[] = [];
  const remoteCalls: unknown[] = [];
  return {
    localCalls,
    remoteCalls,
    route: (ds) => {
      if (ds === 'local') return { kind: 'local' };
      if (ds === 'code') return { kind: 'remote', subject: 'reward.sandbox.score' };
      throw new AppError(ErrorCode.UnknownDataSource, `unknown ${ds}`, { status: 400 });
    },
    runLocal: async (tasks) => {
      localCalls.push(tasks);
      return tasks.map((t, i) => (t.input.params.fail ? { status: 'timeout' as const } : { status: 'ok' as const, value: { score: i, extra: {} } }));
    },
    runRemote: async (subject, items) => {
      remoteCalls.push({ subject, items });
      return items.map(() => ({ score: 0.5, extra: { remote: true } }));
    },
    defaultTimeoutMs: 1234,
    ...over,
  };
}

describe('scoreBatch', () => {
  it('keeps request order across local, remote and unknown items', async () => {
    const d = deps();
    const out = await scoreBatch([item('local'), item('code'), item('nope'), item('local')], d);
    expect(out).toEqual([
      { score: 0, extra: {} },
      { score: 0.5, extra: { remote: true } },
      { error: { code: 'unknown_data_source', message: 'unknown nope' } },
      { score: 1, extra: {} },
    ]);
  });

  it('takes timeout_ms out of the verl params and uses it as the budget', async () => {
    const d = deps();
    await scoreBatch([item('local', { timeout_ms: 50, method: 'flexible' }), item('local')], d);
    const tasks = d.localCalls[0] as Array<{ input: { params: unknown }; budgetMs: number }>;
    expect(tasks.map((t) => t.budgetMs)).toEqual([50, 1234]);
    expect(tasks[0]?.input.params).toEqual({ method: 'flexible' });
  });

  it('turns a budget overrun into the timeout error, never a zero score', async () => {
    const out = await scoreBatch([item('local', { fail: true, timeout_ms: 7 })], deps());
    expect(out[0]).toEqual({ error: { code: 'timeout', message: 'scoring exceeded its 7 ms budget' } });
  });

  it('reports sandbox_unavailable for code items when nobody serves the sandbox subject', async () => {
    const d = deps({
      runRemote: async () => {
        throw new AppError(ErrorCode.NoResponders, 'none', { status: 503 });
      },
    });
    const out = await scoreBatch([item('code'), item('local')], d);
    expect(out[0]).toMatchObject({ error: { code: 'sandbox_unavailable' } });
    expect(out[1]).toEqual({ score: 0, extra: {} });
  });

  it('keeps the code of any other forwarding failure', async () => {
    const d = deps({
      runRemote: async () => {
        throw new AppError(ErrorCode.Timeout, 'slow', { status: 504 });
      },
    });
    expect((await scoreBatch([item('code')], d))[0]).toEqual({ error: { code: 'timeout', message: 'slow' } });
  });
});
