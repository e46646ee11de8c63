import { describe, expect, it } from 'vitest';
import { expectAllClose } from '../algos.test-support.ts';
import { computePolicyLossGspo } from './gspo.ts';
import { expectGradientsForAllModes, FIXTURE_IS_WEIGHTS, LOSS_FIXTURE } from './fixture.test-support.ts';

const metrics = (r: ReturnType<typeof computePolicyLossGspo>) => [
  r.pgLoss,
  r.metrics['actor/pg_clipfrac'] ?? NaN,
  r.metrics['actor/ppo_kl'] ?? NaN,
  r.metrics['actor/pg_clipfrac_lower'] ?? NaN,
];

describe('computePolicyLossGspo (verl compute_policy_loss_gspo)', () => {
  it('matches the numpy re-statement of verl (gspo, gspo_w of testdata/verl-reference.py)', () => {
    const cfg = { ...LOSS_FIXTURE, clipRatioLow: 0.2, clipRatioHigh: 0.28 };
    expectAllClose(metrics(computePolicyLossGspo(cfg)), [-0.11228478, 0.2857143, -0.29285714, 0], 1e-6);
    expectAllClose(metrics(computePolicyLossGspo({ ...cfg, rolloutIsWeights: FIXTURE_IS_WEIGHTS })), [0.10104856, 0.2857143, -0.29285714, 0], 1e-6);
  });

  it('ignores loss_agg_mode: verl always aggregates GSPO with seq-mean-token-mean', () => {
    const a = computePolicyLossGspo({ ...LOSS_FIXTURE, lossAggMode: 'token-mean' });
    const b = computePolicyLossGspo({ ...LOSS_FIXTURE, lossAggMode: 'seq-mean-token-sum-norm' });
    expect(a.pgLoss).toBe(b.pgLoss);
  });

  it('clamps the sequence log-ratio at 10: above it the gradient is 0 (torch.clamp(max=10))', () => {
    const one = { batchSize: 1, seqLen: 2 };
    const r = computePolicyLossGspo({
      shape: one,
      oldLogProb: Float64Array.from([0, 0]),
      logProb: Float64Array.from([12, 12]),
      advantages: Float64Array.from([-1, -1]),
      responseMask: Float64Array.from([1, 1]),
    });
    expect(r.pgLoss).toBeCloseTo((2 * Math.exp(10)) / (2 + 1e-8), 6);
    expectAllClose(r.dLogProb, [0, 0], 0);
  });

  it('an all-masked row counts as length 1 (clamp(min=1)) and adds nothing', () => {
    const shape = { batchSize: 2, seqLen: 2 };
    const r = computePolicyLossGspo({
      shape,
      oldLogProb: new Float64Array(4),
      logProb: Float64Array.from([0.1, 0.1, 5, 5]),
      advantages: Float64Array.from([1, 1, 1, 1]),
      responseMask: Float64Array.from([1, 1, 0, 0]),
    });
    expect(r.pgLoss).toBeCloseTo(-Math.min(Math.exp(0.1), 1.2), 6);
    expectAllClose(r.dLogProb.slice(2), [0, 0], 0);
  });

  it('dLoss/dlogProb matches finite differences (clip 0.2 / 0.28, IS weights)', () => {
    expectGradientsForAllModes(computePolicyLossGspo, { clipRatioLow: 0.2, clipRatioHigh: 0.28 });
  });
});
