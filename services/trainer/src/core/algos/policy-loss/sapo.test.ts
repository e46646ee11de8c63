import { describe, expect, it } from 'vitest';
import { expectAllClose, expectInvalid } from '../algos.test-support.ts';
import { computePolicyLossSapo } from './sapo.ts';
import { expectGradientsForAllModes, FIXTURE_IS_WEIGHTS, LOSS_FIXTURE } from './fixture.test-support.ts';

const metrics = (r: ReturnType<typeof computePolicyLossSapo>) => [
  r.pgLoss,
  r.metrics['actor/pg_clipfrac'] ?? NaN,
  r.metrics['actor/ppo_kl'] ?? NaN,
  r.metrics['actor/pg_clipfrac_lower'] ?? NaN,
];

describe('computePolicyLossSapo (verl compute_policy_loss_sapo)', () => {
  it('matches the numpy re-statement of verl (sapo, sapo_tau of testdata/verl-reference.py)', () => {
    expectAllClose(metrics(computePolicyLossSapo(LOSS_FIXTURE)), [0.24627714, 0, -0.29285714, 0], 1e-6);
    const tau = computePolicyLossSapo({ ...LOSS_FIXTURE, tauPos: 2, tauNeg: 0.5, rolloutIsWeights: FIXTURE_IS_WEIGHTS });
    expectAllClose(metrics(tau), [2.46455002, 0, -0.29285714, 0], 1e-6);
  });

  it('on-policy the gate gradient is -A (4 sigmoid(0)(1 - sigmoid(0)) = 1), whatever tau', () => {
    const one = { batchSize: 1, seqLen: 2 };
    const r = computePolicyLossSapo({
      shape: one,
      oldLogProb: Float64Array.from([-1, -1]),
      logProb: Float64Array.from([-1, -1]),
      advantages: Float64Array.from([2, -3]),
      responseMask: Float64Array.from([1, 1]),
      tauPos: 7,
      tauNeg: 0.3,
    });
    expectAllClose(r.dLogProb, [-2 / 2, 3 / 2], 1e-7);
    // A = 0 takes tau_neg (verl: where(A > 0, tau_pos, tau_neg)), and the loss is 0.
    const zero = computePolicyLossSapo({
      shape: one,
      oldLogProb: Float64Array.from([0, 0]),
      logProb: Float64Array.from([0.5, 0]),
      advantages: Float64Array.from([0, 0]),
      responseMask: Float64Array.from([1, 1]),
    });
    expect(zero.pgLoss).toBe(0);
  });

  it('rejects a zero temperature (verl divides by tau)', () => {
    expectInvalid(() => computePolicyLossSapo({ ...LOSS_FIXTURE, tauNeg: 0 }), 'tauNeg');
  });

  it('dLoss/dlogProb matches finite differences (asymmetric temperatures, IS weights)', () => {
    expectGradientsForAllModes(computePolicyLossSapo, { tauPos: 1.5, tauNeg: 0.8 });
  });
});
