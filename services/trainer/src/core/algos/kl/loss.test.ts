import { describe, expect, it } from 'vitest';
import { expectGradientMatches, randomFloats, randomMask } from '../algos.test-support.ts';
import { computeKlLoss } from './loss.ts';

describe('computeKlLoss (verl use_kl_loss term)', () => {
  it('defaults to low_var_kl with token-mean', () => {
    const r = computeKlLoss({
      shape: { batchSize: 1, seqLen: 3 },
      logProb: Float64Array.from([-1, -2, -5]),
      refLogProb: Float64Array.from([-1.2, -1, 0]),
      responseMask: Float64Array.from([1, 1, 0]),
    });
    // (exp(-0.2) + 0.2 - 1 + e - 2) / 2
    expect(r.klLoss).toBeCloseTo((Math.exp(-0.2) - 0.8 + Math.E - 2) / 2, 7);
  });

  it.each(['kl', 'abs', 'mse', 'low_var_kl', 'k3+'] as const)('%s: gradient matches finite differences', (klLossType) => {
    const shape = { batchSize: 3, seqLen: 8 };
    const cfg = { shape, refLogProb: randomFloats(61, 24, -3, 0), responseMask: randomMask(62, 24), klLossType, lossAggMode: 'seq-mean-token-mean' as const };
    const logProb = randomFloats(63, 24, -6, 0);
    const r = computeKlLoss({ ...cfg, logProb });
    if (klLossType === 'k3+') {
      // Straight-through: the gradient is that of k2, not of the reported k3 value.
      const k2 = computeKlLoss({ ...cfg, logProb, klLossType: 'k2' });
      expectGradientMatches((x) => computeKlLoss({ ...cfg, logProb: x, klLossType: 'k2' }).klLoss, logProb, r.dLogProb);
      expect(r.klLoss).not.toBeCloseTo(k2.klLoss, 3);
    } else {
      expectGradientMatches((x) => computeKlLoss({ ...cfg, logProb: x }).klLoss, logProb, r.dLogProb);
    }
  });
});
