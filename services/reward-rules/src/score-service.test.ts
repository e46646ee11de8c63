import { AppError, createLogger, createMetrics } from '@rl/service-kit';
import { describe, expect, it } from 'vitest';
import type { BatchOutput, SlotResult } from './core/score-batch.ts';
import { createScoreService, type RunRemote } from './score-service.ts';

const codeItem = { data_source: 'apps', solution_str: 's', ground_truth: 'g' };

function service(output: BatchOutput, runRemote: RunRemote) {
  const metrics = createMetrics('test');
  const svc = createScoreService({ pool: { run: async () => output }, runRemote, metrics, logger: createLogger({ service: 'test', level: 'silent' }) });
  return { svc, metrics };
}

describe('ScoreService', () => {
  it('splices the workers’ JSON into the response when nothing is forwarded', async () => {
    const { svc, metrics } = service(
      { resultsJson: '[{"score":1,"extra":{}},{"error":{"code":"timeout","message":"m"}}]', remote: [], errorCodes: { timeout: 1 } },
      async () => [],
    );
    expect(JSON.parse(await svc.score('{}'))).toEqual({
      results: [{ score: 1, extra: {} }, { error: { code: 'timeout', message: 'm' } }],
      deterministic: true,
    });
    expect(await metrics.registry.getSingleMetricAsString('item_errors_total')).toContain('item_errors_total{code="timeout",service="test"} 1');
  });

  it('forwards code items to their subject and merges the answers in place', async () => {
    const calls: unknown[] = [];
    const { svc } = service(
      {
        resultsJson: '[{"score":1,"extra":{}},{"error":{"code":"sandbox_unavailable","message":"x"}}]',
        remote: [{ index: 1, subject: 'reward.sandbox.score', item: codeItem }],
        errorCodes: {},
      },
      async (subject, items): Promise<SlotResult[]> => {
        calls.push({ subject, items });
        return [{ score: 0.5, extra: { pass_rate: 0.5 } }];
      },
    );
    expect(JSON.parse(await svc.score('{}')).results[1]).toEqual({ score: 0.5, extra: { pass_rate: 0.5 } });
    expect(calls).toEqual([{ subject: 'reward.sandbox.score', items: [codeItem] }]);
  });

  it('answers sandbox_unavailable when no sandbox instance is listening', async () => {
    const { svc } = service({ resultsJson: '[null]', remote: [{ index: 0, subject: 'reward.sandbox.score', item: codeItem }], errorCodes: {} }, async () => {
      throw new AppError('no_responders', 'none');
    });
    expect(JSON.parse(await svc.score('{}')).results[0]).toMatchObject({ error: { code: 'sandbox_unavailable' } });
  });

  it('keeps the code of any other forwarding failure', async () => {
    const { svc } = service({ resultsJson: '[null]', remote: [{ index: 0, subject: 'reward.sandbox.score', item: codeItem }], errorCodes: {} }, async () => {
      throw new AppError('timeout', 'slow');
    });
    expect(JSON.parse(await svc.score('{}')).results[0]).toEqual({ error: { code: 'timeout', message: 'slow' } });
  });
});
