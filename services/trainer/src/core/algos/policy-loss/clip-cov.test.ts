import { createRng } from '@rl/service-kit/core';
import { describe, expect, it } from 'vitest';
import { expectAllClose, expectInvalid } from '../algos.test-support.ts';
import { clipCovCount, computePolicyLossClipCov, selectByKeys } from './clip-cov.ts';
import { expectGradientsForAllModes, LOSS_FIXTURE, replayRng } from './fixture.test-support.ts';

// `keys` of testdata/verl-reference.py, one per token in row-major order.
const KEYS = [0.9, 0.1, 0.5, 0.3, 0.2, 0.8, 0.4, 0.05];

describe('computePolicyLossClipCov (verl compute_policy_loss_clip_cov)', () => {
  it('matches the numpy re-statement of verl (clip_cov of testdata/verl-reference.py: tokens 4 and 6 detached)', () => {
    const r = computePolicyLossClipCov({
      ...LOSS_FIXTURE,
      clipCovRatio: 0.3,
      clipCovLb: -0.5,
      clipCovUb: 0.5,
      clipRatioLow: 0.2,
      clipRatioHigh: 0.28,
      rng: replayRng(KEYS),
    });
    expectAllClose([r.pgLoss, r.metrics['actor/pg_clipfrac'] ?? NaN, r.metrics['actor/ppo_kl'] ?? NaN], [1.13586831, 0.2857143, -0.29285714], 1e-6);
    expect(Math.abs(r.dLogProb[4] as number)).toBe(0);
    expect(Math.abs(r.dLogProb[6] as number)).toBe(0);
    expect(Object.keys(r.metrics).sort()).toEqual(['actor/pg_clipfrac', 'actor/ppo_kl']);
  });

  it('clip_num = max(int(ratio * mask.sum()), 1): rounding to zero still detaches one token', () => {
    expect(clipCovCount(0.0002, 7)).toBe(1);
    expect(clipCovCount(0.3, 7)).toBe(2);
    // Python int(0.29 * 100) is 28: the product is 28.999999999999996 in double precision.
    expect(clipCovCount(0.29, 100)).toBe(28);
    const r = computePolicyLossClipCov({ ...LOSS_FIXTURE, clipCovLb: -10, clipCovUb: 10, rng: replayRng(KEYS) });
    expect(r.metrics['actor/pg_clipfrac']).toBeCloseTo(1 / 7, 7);
  });

  it('no candidate in (lb, ub) detaches nothing: the loss is the PPO clip loss without dual clip', () => {
    const r = computePolicyLossClipCov({ ...LOSS_FIXTURE, clipCovLb: 100, clipCovUb: 200, rng: replayRng(KEYS) });
    expect(r.metrics['actor/pg_clipfrac']).toBe(0);
  });

  it('chooses the candidates with the smallest keys, the lower index first on equal keys', () => {
    const cand = Uint8Array.from([1, 0, 1, 1, 1]);
    expect(Array.from(selectByKeys(cand, [0.5, 0.0, 0.2, 0.2, 0.9], 2))).toEqual([0, 0, 1, 1, 0]);
    expect(Array.from(selectByKeys(cand, [0.5, 0.0, 0.2, 0.2, 0.9], 9))).toEqual([1, 0, 1, 1, 1]);
  });

  it('an empty mask detaches nothing and gives verl token-mean 0/0 = NaN', () => {
    const r = computePolicyLossClipCov({ ...LOSS_FIXTURE, responseMask: new Float64Array(8), rng: createRng(1) });
    expect(r.metrics['actor/pg_clipfrac']).toBe(0);
    expect(r.pgLoss).toBeNaN();
  });

  it('needs a seeded rng and a positive ratio (verl asserts clip_cov_ratio > 0)', () => {
    expectInvalid(() => computePolicyLossClipCov({ ...LOSS_FIXTURE }), 'rng');
    expectInvalid(() => computePolicyLossClipCov({ ...LOSS_FIXTURE, clipCovRatio: 0, rng: createRng(1) }), 'clipCovRatio');
  });

  it('dLoss/dlogProb matches finite differences with the chosen tokens fixed (wide bounds, 20% detached)', () => {
    for (const seed of [3, 4]) {
      const extra = { clipCovRatio: 0.2, clipCovLb: -5, clipCovUb: 5, clipRatioLow: 0.2, clipRatioHigh: 0.28 };
      // A fresh rng per call: every evaluation draws the same keys, so the same tokens are chosen.
      const fn = (input: Parameters<typeof computePolicyLossClipCov>[0]) => computePolicyLossClipCov({ ...input, rng: createRng(seed) });
      expectGradientsForAllModes(fn, extra);
      const r = fn({ ...LOSS_FIXTURE, ...extra });
      expect(r.metrics['actor/pg_clipfrac']).toBeGreaterThan(0);
    }
  });
});
