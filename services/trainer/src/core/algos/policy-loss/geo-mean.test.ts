import { describe, expect, it } from 'vitest';
import { expectAllClose } from '../algos.test-support.ts';
import { computePolicyLossGeoMean } from './geo-mean.ts';
import { expectGradientsForAllModes, FIXTURE_IS_WEIGHTS, LOSS_FIXTURE } from './fixture.test-support.ts';

const metrics = (r: ReturnType<typeof computePolicyLossGeoMean>) => [
  r.pgLoss,
  r.metrics['actor/pg_clipfrac'] ?? NaN,
  r.metrics['actor/ppo_kl'] ?? NaN,
  r.metrics['actor/pg_clipfrac_lower'] ?? NaN,
];

describe('computePolicyLossGeoMean (verl compute_policy_loss_geo_mean)', () => {
  it('matches the numpy re-statement of verl (geo_mean, geo_mean_w of testdata/verl-reference.py)', () => {
    const cfg = { ...LOSS_FIXTURE, clipRatioLow: 0.2, clipRatioHigh: 0.28 };
    expectAllClose(metrics(computePolicyLossGeoMean(cfg)), [-0.27817041, 0.2857143, -0.29285714, 0.2857143], 1e-6);
    expectAllClose(metrics(computePolicyLossGeoMean({ ...cfg, rolloutIsWeights: FIXTURE_IS_WEIGHTS })), [-0.20148906, 0.2857143, -0.29285714, 0.2857143], 1e-6);
  });

  it('is a plain mean over rows: loss_agg_mode is ignored and an all-masked row counts with loss 0', () => {
    const shape = { batchSize: 2, seqLen: 2 };
    const base = {
      shape,
      oldLogProb: new Float64Array(4),
      logProb: Float64Array.from([0.1, 0.1, 3, 3]),
      advantages: Float64Array.from([1, 1, 1, 1]),
      responseMask: Float64Array.from([1, 1, 0, 0]),
    };
    const r = computePolicyLossGeoMean({ ...base, lossAggMode: 'seq-mean-token-sum' });
    expect(r.pgLoss).toBeCloseTo(-Math.exp(0.1) / 2, 6);
    expect(computePolicyLossGeoMean(base).pgLoss).toBe(r.pgLoss);
    expectAllClose(r.dLogProb.slice(2), [0, 0], 0);
  });

  it('inside the clip range the token gradient is full (torch.min splits ties, both halves pass)', () => {
    const one = { batchSize: 1, seqLen: 2 };
    const r = computePolicyLossGeoMean({
      shape: one,
      oldLogProb: new Float64Array(2),
      logProb: Float64Array.from([0.1, 0.5]),
      advantages: Float64Array.from([1, 1]),
      responseMask: Float64Array.from([1, 1]),
    });
    // Token 2 is clipped (0.5 > 0.2) on the unfavourable side for A > 0: no gradient; token 1 gets -ratio/2.
    const ratio = Math.exp((0.1 + 0.2) / (2 + 1e-8));
    expectAllClose(r.dLogProb, [-ratio / (2 + 1e-8), 0], 1e-7);
  });

  it('dLoss/dlogProb matches finite differences (clip 0.2 / 0.28, IS weights)', () => {
    expectGradientsForAllModes(computePolicyLossGeoMean, { clipRatioLow: 0.2, clipRatioHigh: 0.28 });
  });
});
