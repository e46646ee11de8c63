import { describe, expect, it } from 'vitest';
import { expectAllClose } from '../algos.test-support.ts';
import { computePolicyLossCispo } from './cispo.ts';
import { expectGradientsForAllModes, FIXTURE_IS_WEIGHTS, LOSS_FIXTURE } from './fixture.test-support.ts';

const metrics = (r: ReturnType<typeof computePolicyLossCispo>) => [
  r.pgLoss,
  r.metrics['actor/pg_clipfrac'] ?? NaN,
  r.metrics['actor/ppo_kl'] ?? NaN,
  r.metrics['actor/pg_clipfrac_lower'] ?? NaN,
];

describe('computePolicyLossCispo (verl compute_policy_loss_cispo)', () => {
  it('matches the numpy re-statement of verl (cispo, cispo_seqsum of testdata/verl-reference.py)', () => {
    const cfg = { ...LOSS_FIXTURE, clipRatioLow: 0.2, clipRatioHigh: 0.28 };
    expectAllClose(metrics(computePolicyLossCispo(cfg)), [0.43783182, 0.5714286, -0.29285714, 0], 1e-6);
    const seqSum = computePolicyLossCispo({ ...cfg, lossAggMode: 'seq-mean-token-sum', rolloutIsWeights: FIXTURE_IS_WEIGHTS });
    expectAllClose(metrics(seqSum), [1.37860739, 0.5714286, -0.29285714, 0], 1e-6);
  });

  it('the clipped ratio is detached: the gradient is -clip(r) A even where the ratio is clipped', () => {
    const one = { batchSize: 1, seqLen: 1 };
    const r = computePolicyLossCispo({
      shape: one,
      oldLogProb: Float64Array.from([0]),
      logProb: Float64Array.from([Math.log(2)]),
      advantages: Float64Array.from([1]),
      responseMask: Float64Array.from([1]),
    });
    expect(r.dLogProb[0]).toBeCloseTo(-1.2, 6);
    expect(r.metrics['actor/pg_clipfrac']).toBeCloseTo(1, 7);
  });

  it('dLoss/dlogProb matches finite differences (clip 0.2 / 0.28, IS weights)', () => {
    expectGradientsForAllModes(computePolicyLossCispo, { clipRatioLow: 0.2, clipRatioHigh: 0.28 });
  });
});
