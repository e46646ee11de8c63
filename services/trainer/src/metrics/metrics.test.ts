import { describe, expect, it } from 'vitest';
import { computeExplainedVariance, computeLengthMetrics, computeTimingMetrics, computeTokenStats, reduceMetrics } from './batch-metrics.ts';
import { computeRewardMetrics } from './reward-metrics.ts';
import { buildStepMetrics } from './step-metrics.ts';
import { computeValidationMetrics } from './validation-metrics.ts';

describe('computeRewardMetrics', () => {
  const samples = [
    { data_source: 'A', score: 1, extra: { acc: true, format: 0.5, pred: '3', nested: { x: 1 } } },
    { data_source: 'A', score: 0, extra: { acc: false, format: 0, pred: '4' } },
    { data_source: 'A', score: 1, extra: { acc: true, format: 1, pred: '3' } },
    { data_source: 'B', score: 0.5, reward: 0.25, extra: {} },
    { data_source: 'B', score: null, extra: {} },
  ];
  const m = computeRewardMetrics(samples);

  it('gives verl critic/score and critic/rewards over scored items (errors left out)', () => {
    expect(m['critic/score/mean']).toBeCloseTo(0.625, 12);
    expect(m['critic/score/std']).toBeCloseTo(Math.sqrt(0.171875), 12);
    expect([m['critic/score/max'], m['critic/score/min']]).toEqual([1, 0]);
    expect(m['critic/rewards/mean']).toBeCloseTo((1 + 0 + 1 + 0.25) / 4, 12);
    expect(m['critic/rewards/min']).toBe(0);
  });

  it('gives per-data-source score stats, every numeric extra (acc as 0/1) and error counts', () => {
    expect(m['reward/A/score/mean']).toBeCloseTo(2 / 3, 12);
    expect(m['reward/A/acc/mean']).toBeCloseTo(2 / 3, 12);
    expect(m['reward/A/format/mean']).toBeCloseTo(0.5, 12);
    expect(m).not.toHaveProperty('reward/A/pred/mean');
    expect(m).not.toHaveProperty('reward/A/nested/mean');
    expect(m['reward/acc/mean']).toBeCloseTo(2 / 3, 12);
    expect(m['reward/B/count']).toBe(2);
    expect(m['reward/B/error_count']).toBe(1);
    expect(m['reward/B/score/std']).toBe(0);
    expect(m['reward/error_count']).toBe(1);
    expect(m['reward/error_ratio']).toBeCloseTo(0.2, 12);
  });
});

describe('batch metrics', () => {
  it('computes verl response/prompt length metrics with clip and aborted ratios', () => {
    expect(computeLengthMetrics({ responseLengths: [3, 8, 8, 0], maxResponseLength: 8, promptLengths: [5, 10], maxPromptLength: 10 })).toEqual({
      'response_length/mean': 4.75,
      'response_length/max': 8,
      'response_length/min': 0,
      'response_length/clip_ratio': 0.5,
      'response/aborted_ratio': 0.25,
      'prompt_length/mean': 7.5,
      'prompt_length/max': 10,
      'prompt_length/min': 5,
      'prompt_length/clip_ratio': 0.5,
    });
  });

  it('computes timing_s, per-token timings (gen per response token, model stages per token) and throughput', () => {
    expect(computeTimingMetrics({ gen: 2, reward: 0.5, update_actor: 1, step: 4 }, { promptTokens: 100, responseTokens: 400 })).toEqual({
      'timing_s/gen': 2,
      'timing_s/reward': 0.5,
      'timing_s/update_actor': 1,
      'timing_s/step': 4,
      'timing_per_token_ms/gen': 5,
      'timing_per_token_ms/update_actor': 2,
      'perf/total_num_tokens': 500,
      'perf/time_per_step': 4,
      'perf/throughput': 125,
    });
  });

  it('computes masked token stats and the explained variance with unbiased variances', () => {
    const mask = [1, 1, 0, 1, 1, 0];
    expect(computeTokenStats('advantages', [1, -2, 99, 3, 0, 99], mask)).toEqual({
      'critic/advantages/mean': 0.5,
      'critic/advantages/max': 3,
      'critic/advantages/min': -2,
    });
    const ev = computeExplainedVariance([1, 2, 7, 3, 4, 7], [1, 2, 0, 3, 3, 0], mask)['critic/vf_explained_var'];
    expect(ev).toBeCloseTo(1 - 0.25 / (5 / 3 + 1e-5), 12);
    expect(reduceMetrics({ 'actor/pg_loss': [1, 2, 3], empty: [] })).toEqual({ 'actor/pg_loss': 2 });
  });
});

describe('computeValidationMetrics', () => {
  it('puts mean@1 of acc under val-core and the reward under val-aux for single responses', () => {
    const m = computeValidationMetrics([
      { data_source: 'arithmetic_sequence', uid: 0, score: 0.9, extra: { acc: true } },
      { data_source: 'arithmetic_sequence', uid: 1, score: 0.1, extra: { acc: false } },
      { data_source: 'other', uid: 2, score: 0.4 },
    ]);
    expect(m).toEqual({
      'val-aux/arithmetic_sequence/reward/mean@1': 0.5,
      'val-core/arithmetic_sequence/acc/mean@1': 0.5,
      'val-core/other/reward/mean@1': 0.4,
    });
  });

  it('adds std@n and bootstrapped best/worst/maj@k for several responses per prompt', () => {
    const preds = ['7', '8', '8', '7'];
    const m = computeValidationMetrics([1, 0, 0, 1].map((acc, i) => ({ data_source: 'd', uid: 'p', score: acc, extra: { acc, pred: preds[i] } })));
    expect(m['val-core/d/acc/mean@4']).toBe(0.5);
    expect(m['val-aux/d/acc/std@4']).toBe(0.5);
    // P(best of 2 draws with replacement = 1) = 0.75; 1000 resamples put the estimate within a few hundredths.
    expect(m['val-aux/d/acc/best@2/mean']).toBeGreaterThan(0.7);
    expect(m['val-aux/d/acc/best@2/mean']).toBeLessThan(0.8);
    expect(m['val-core/d/acc/best@4/mean']).toBeGreaterThan(0.85);
    expect(m['val-aux/d/acc/worst@2/mean']).toBeLessThan(0.3);
    expect(m).toHaveProperty('val-core/d/acc/maj@4/mean');
    expect(m).toHaveProperty('val-aux/d/reward/mean@4', 0.5);
    // Same inputs, same seed: same numbers.
    expect(computeValidationMetrics([1, 0, 0, 1].map((acc, i) => ({ data_source: 'd', uid: 'p', score: acc, extra: { acc, pred: preds[i] } })))).toEqual(m);
  });
});

describe('buildStepMetrics', () => {
  it('merges step, reward, length, timing and pass-through scalars; non-finite values become null', () => {
    const r = buildStepMetrics({
      step: 3,
      epoch: 1,
      samples: [{ data_source: 'a', score: 1 }],
      lengths: { responseLengths: [4], maxResponseLength: 8 },
      timingS: { gen: 1.5 },
      scalars: { 'actor/pg_loss': -0.1, 'actor/entropy': Number.NaN, 'actor/grad_norm': undefined, 'critic/score/mean': 0.5 },
    });
    expect(r).toMatchObject({
      step: 3,
      'training/global_step': 3,
      'training/epoch': 1,
      'critic/score/mean': 0.5,
      'response_length/mean': 4,
      'timing_s/gen': 1.5,
      'actor/pg_loss': -0.1,
      'actor/entropy': null,
    });
    expect(r).not.toHaveProperty('actor/grad_norm');
    expect(JSON.parse(JSON.stringify(r))).toEqual(r);
  });
});
