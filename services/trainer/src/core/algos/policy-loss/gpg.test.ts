import { describe, expect, it } from 'vitest';
import { expectAllClose, expectGradientMatches, randomFloats, randomMask } from '../algos.test-support.ts';
import { computePolicyLossGpg } from './gpg.ts';

describe('computePolicyLossGpg (verl compute_policy_loss_gpg)', () => {
  it('is agg(-logp * A)', () => {
    const r = computePolicyLossGpg({
      shape: { batchSize: 1, seqLen: 3 },
      logProb: Float64Array.from([-1, -2, -3]),
      advantages: Float64Array.from([1, -1, 5]),
      responseMask: Float64Array.from([1, 1, 0]),
    });
    // (1 - 2) / 2 tokens
    expect(r.pgLoss).toBeCloseTo(-0.5, 12);
    expectAllClose(r.dLogProb, [-0.5, 0.5, 0]);
  });

  it('gradient matches finite differences', () => {
    const shape = { batchSize: 3, seqLen: 5 };
    const cfg = { shape, advantages: randomFloats(41, 15, -2, 2), responseMask: randomMask(42, 15), lossAggMode: 'seq-mean-token-mean' as const };
    const logProb = randomFloats(43, 15, -3, 0);
    const r = computePolicyLossGpg({ ...cfg, logProb });
    expectGradientMatches((x) => computePolicyLossGpg({ ...cfg, logProb: x }).pgLoss, logProb, r.dLogProb);
  });
});
