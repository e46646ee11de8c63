import { AppError, ErrorCode } from '@rl/service-kit/core';
import { describe, expect, it } from 'vitest';
import { type ScoreItem, scoreItem } from './score-item.ts';

function item(overrides: Partial<ScoreItem>): ScoreItem {
  return { data_source: 'openai/gsm8k', solution_str: '#### 72', ground_truth: '72', ...overrides };
}

function errorOf(run: () => unknown): AppError {
  try {
    run();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an AppError');
}

describe('scoreItem', () => {
  it('dispatches by data_source with verl defaults', () => {
    expect(scoreItem(item({}))).toEqual({ score: 1, extra: { acc: true, pred: '72' } });
  });

  it('passes parsed params to the scorer', () => {
    const out = scoreItem(item({ solution_str: 'it is 72.', params: { method: 'flexible', format_score: 0.1 } }));
    expect(out).toEqual({ score: 0.1, extra: { acc: false, pred: '72.' } });
  });

  it('returns verl dict scorers as score + extra (math_dapo)', () => {
    const out = scoreItem(item({ data_source: 'aime2024', solution_str: 'Answer: 5', ground_truth: '5' }));
    expect(out).toEqual({ score: 1, extra: { acc: true, pred: '5' } });
  });

  it('scores Search-R1 sources with EM', () => {
    const out = scoreItem(item({ data_source: 'searchR1_nq', solution_str: '<answer>the Paris</answer>', ground_truth: { target: ['Paris'] } }));
    expect(out).toEqual({ score: 1, extra: { acc: true, pred: 'the Paris' } });
  });

  it('names the failing params key', () => {
    const err = errorOf(() => scoreItem(item({ params: { method: 'loose' } })));
    expect(err).toMatchObject({ code: ErrorCode.InvalidParams, status: 400 });
    expect(err.message).toContain('params.method');
  });

  it('rejects params verl does not know', () => {
    const err = errorOf(() => scoreItem(item({ params: { temperature: 1 } })));
    expect(err).toMatchObject({ code: ErrorCode.InvalidParams, status: 400 });
    expect(err.message).toContain('temperature');
  });

  it('names nested params keys (math_dapo pause_tokens_index)', () => {
    const params = { strict_box_verify: true, pause_tokens_index: [1, 2] };
    const err = errorOf(() => scoreItem(item({ data_source: 'math_dapo', params })));
    expect(err).toMatchObject({ code: ErrorCode.InvalidParams });
    expect(err.message).toContain('params.pause_tokens_index');
  });

  it('reports ground truths verl would raise on', () => {
    const err = errorOf(() => scoreItem(item({ data_source: 'math_dapo', ground_truth: 5 })));
    expect(err).toMatchObject({ code: ErrorCode.InvalidGroundTruth, status: 400 });
  });

  it('rejects unknown data sources', () => {
    const err = errorOf(() => scoreItem(item({ data_source: 'numina_olympiads' })));
    expect(err).toMatchObject({ code: ErrorCode.UnknownDataSource, status: 400 });
  });

  it('does not score code data sources locally', () => {
    const err = errorOf(() => scoreItem(item({ data_source: 'codeforces' })));
    expect(err).toMatchObject({ code: ErrorCode.SandboxUnavailable, status: 503, retryable: true });
  });
});
