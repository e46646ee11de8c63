import { AppError } from '@rl/service-kit/core';
import { describe, expect, it } from 'vitest';
import { closeBatch, itemBudgetMs, openBatch, scoreBatchItem, skipBatchItem, type BatchState } from './score-batch.ts';

const gsm8k = (solution: string, params?: Record<string, unknown>) => ({
  data_source: 'openai/gsm8k',
  solution_str: solution,
  ground_truth: '18',
  ...(params ? { params } : {}),
});

function scoreAll(items: unknown[], defaultTimeoutMs = 5000): BatchState {
  const state = openBatch(JSON.stringify({ items }), defaultTimeoutMs);
  for (let i = 0; i < state.items.length; i++) scoreBatchItem(state, i);
  return state;
}

describe('openBatch', () => {
  it('rejects malformed JSON as bad_request', () => {
    const err = (() => {
      try {
        openBatch('{"items": [', 1);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('bad_request');
    expect((err as AppError).status).toBe(400);
  });

  it('rejects schema violations with a message naming each field', () => {
    try {
      openBatch(JSON.stringify({ items: [{ data_source: 'x', solution_str: 3 }] }), 1);
      expect.unreachable();
    } catch (e) {
      expect((e as AppError).code).toBe('validation_failed');
      expect((e as AppError).message).toContain('items[0].solution_str');
      expect((e as AppError).message).toContain('items[0].ground_truth');
    }
  });
});

describe('scoring a batch', () => {
  it('keeps request order and puts unknown data sources in their own error slot', () => {
    const state = scoreAll([gsm8k('#### 18'), { data_source: 'nope', solution_str: '', ground_truth: '' }, gsm8k('#### 17')]);
    expect(state.results).toEqual([
      { score: 1, extra: { acc: true, pred: '18' } },
      { error: { code: 'unknown_data_source', message: expect.stringContaining('nope') } },
      { score: 0, extra: { acc: false, pred: '17' } },
    ]);
  });

  it('takes timeout_ms out of the verl params (the scorer rejects unknown keys) and uses it as the budget', () => {
    const state = scoreAll([gsm8k('18', { timeout_ms: 50, method: 'flexible' }), gsm8k('#### 18')], 1234);
    expect(state.results[0]).toMatchObject({ score: 1 });
    expect([itemBudgetMs(state, 0), itemBudgetMs(state, 1)]).toEqual([50, 1234]);
  });

  it('reports bad params in the item slot naming the key', () => {
    const state = scoreAll([gsm8k('#### 18', { method: 'fuzzy' })]);
    expect(state.results[0]).toMatchObject({ error: { code: 'invalid_params', message: expect.stringContaining('params.method') } });
  });

  it('sets code data sources aside for forwarding', () => {
    const code = { data_source: 'apps', solution_str: '```python\nprint(1)\n```', ground_truth: '{}' };
    const state = scoreAll([gsm8k('#### 18'), code]);
    expect(state.remote).toEqual([{ index: 1, subject: 'reward.sandbox.score', item: code }]);
    expect(closeBatch(state).errorCodes).toEqual({});
  });

  it('turns an abandoned item into a timeout or crash error, never a zero score', () => {
    const state = openBatch(JSON.stringify({ items: [gsm8k('x', { timeout_ms: 7 }), gsm8k('y')] }), 100);
    skipBatchItem(state, 0, 'timeout');
    skipBatchItem(state, 1, 'crashed');
    expect(state.results).toEqual([
      { error: { code: 'timeout', message: 'scoring exceeded its 7 ms budget' } },
      { error: { code: 'scorer_failed', message: expect.stringContaining('crashed') } },
    ]);
    expect(closeBatch(state).errorCodes).toEqual({ timeout: 1, scorer_failed: 1 });
  });

  it('serialises results as the JSON array the edge splices into the response', () => {
    const state = scoreAll([gsm8k('#### 18')]);
    expect(JSON.parse(closeBatch(state).resultsJson)).toEqual(state.results);
  });
});
