import { describe, expect, it } from 'vitest';
import { expectAllClose, expectInvalid } from '../algos.test-support.ts';
import { computePolicyLossKlCov, selectKlCovTokens } from './kl-cov.ts';
import { expectGradientsForAllModes, LOSS_FIXTURE } from './fixture.test-support.ts';

describe('computePolicyLossKlCov (verl compute_policy_loss_kl_cov)', () => {
  it('matches the numpy re-statement of verl (kl_cov, kl_cov_seqmean of testdata/verl-reference.py)', () => {
    const r = computePolicyLossKlCov({ ...LOSS_FIXTURE, klCovRatio: 0.3, ppoKlCoef: 0.1 });
    expectAllClose([r.pgLoss, r.metrics['actor/ppo_kl'] ?? NaN], [0.75623959, 0.4642857], 1e-6);
    expect(selectKlCovTokens(LOSS_FIXTURE.advantages, LOSS_FIXTURE.logProb, LOSS_FIXTURE.responseMask, 0.3)).toEqual([2, 6]);
    const s = computePolicyLossKlCov({ ...LOSS_FIXTURE, klCovRatio: 0.5, ppoKlCoef: 1, lossAggMode: 'seq-mean-token-mean' });
    expectAllClose([s.pgLoss, s.metrics['actor/ppo_kl'] ?? NaN], [0.75896573, 0.4642857], 1e-6);
    expect(Object.keys(r.metrics)).toEqual(['actor/ppo_kl']);
  });

  it('k = max(1, int(n_valid * ratio)): the default 0.0002 still penalises one token', () => {
    expect(selectKlCovTokens(LOSS_FIXTURE.advantages, LOSS_FIXTURE.logProb, LOSS_FIXTURE.responseMask, 0.0002)).toEqual([2]);
  });

  it('breaks ties as torch.topk does on the CPU (equal covariances: not simply the lowest index)', () => {
    // All six covariances equal 0.5 (float32); torch keeps tokens 3 and 5. The indices
    // come from torch 1.13 CPU (testdata/torch-topk-reference.py).
    const adv = [1, 1, 1, -1, -1, -1];
    const logp = [-0.5, -0.5, -0.5, -1.5, -1.5, -1.5];
    const mask = [1, 1, 1, 1, 1, 1];
    expect(selectKlCovTokens(adv, logp, mask, 0.34)).toEqual([3, 5]);
  });

  it('no valid token penalises nothing (verl: k = min(ratio, 0) = 0)', () => {
    expect(selectKlCovTokens([1, 2], [-1, -2], [0, 0], 0.5)).toEqual([]);
  });

  it('rejects a ratio that asks for more tokens than there are (torch.topk raises) and a ratio <= 0', () => {
    expectInvalid(() => computePolicyLossKlCov({ ...LOSS_FIXTURE, klCovRatio: 1.5 }), 'klCovRatio');
    expectInvalid(() => computePolicyLossKlCov({ ...LOSS_FIXTURE, klCovRatio: 0 }), 'klCovRatio');
  });

  it('dLoss/dlogProb matches finite differences with the selection fixed (|d| has gradient sign(d))', () => {
    expectGradientsForAllModes(computePolicyLossKlCov, { klCovRatio: 0.3, ppoKlCoef: 0.7 });
  });
});
