import { AppError, ErrorCode } from '@rl/service-kit';
import { describe, expect, it } from 'vitest';
import type { Executor } from './core/executor.ts';
import type { RunOutcome, RunSpec } from './core/runner.ts';
import { createScoreService } from './score-service.ts';

/** An executor that "runs" programs by echoing a table of stdin -> stdout, or fails as told. */
function fakeExecutor(behaviour: (spec: RunSpec) => RunOutcome | AppError | Error): Executor {
  return {
    run: async (spec) => {
      const r = behaviour(spec);
      if (r instanceof Error) throw r;
      return r;
    },
    languages: () => [{ language: 'python', runner: 'fake' }],
  };
}
const ran = (stdout: string): RunOutcome => ({
  compile_result: null,
  run_result: { status: 'Finished', execution_time: 0.01, return_code: 0, stdout, stderr: '' },
  files: {},
  notes: [],
});
const item = (params?: Record<string, unknown>) => ({
  data_source: 'apps',
  solution_str: '```python\nprint(int(input()) * 2)\n```',
  ground_truth: { inputs: ['1\n', '2\n', '3\n'], outputs: ['2\n', '4\n', '7\n'] },
  ...(params ? { params } : {}),
});
const svc = (ex: Executor) => createScoreService({ executor: ex, defaults: { defaultMemoryMb: 256, maxOutputBytes: 1024 }, caseConcurrency: 2 });

describe('sandbox ScoreService', () => {
  it('scores the pass rate over the cases, as verl sandbox_fusion does', async () => {
    const [r] = await svc(fakeExecutor((s) => ran(String(Number(s.stdin) * 2)))).score([item()]);
    expect(r).toMatchObject({ score: 2 / 3, extra: { passed: 2, total: 3 } });
  });

  it('takes the per-item timeout_ms budget out of verl’s params', async () => {
    const [r] = await svc(fakeExecutor((s) => ran(String(Number(s.stdin) * 2)))).score([item({ timeout_ms: 5000, continuous: true })]);
    expect(r).toMatchObject({ extra: { passed: 2 } });
  });

  it('answers busy for the item instead of scoring unrun cases', async () => {
    const busy = new AppError(ErrorCode.Busy, 'sandbox busy', { retryable: true });
    const [r] = await svc(fakeExecutor(() => busy)).score([item()]);
    expect(r).toEqual({ error: { code: 'busy', message: 'sandbox busy' } });
  });

  it('reports an unsupported language as the item’s error', async () => {
    const nope = new AppError(ErrorCode.UnsupportedLanguage, 'language "java" is not supported');
    const [r] = await svc(fakeExecutor(() => nope)).score([item({ language: 'java' })]);
    expect(r).toMatchObject({ error: { code: 'unsupported_language' } });
  });

  it('scores a sandbox failure on a case as verl does (-1), without failing the item', async () => {
    let n = 0;
    const [r] = await svc(fakeExecutor((s) => (++n === 1 ? new Error('bwrap exploded') : ran(String(Number(s.stdin) * 2))))).score([item()]);
    expect(r).toMatchObject({ extra: { total: 3 } });
    expect((r as { score: number }).score).toBeLessThan(1);
  });

  it('rejects unknown params and bad ground truth in the item slot', async () => {
    const [a, b] = await svc(fakeExecutor(() => ran(''))).score([item({ nope: 1 }), { ...item(), ground_truth: '{"inputs": [1]' }]);
    expect(a).toMatchObject({ error: { code: 'invalid_params' } });
    expect(b).toMatchObject({ error: { code: 'invalid_ground_truth' } });
  });
});
