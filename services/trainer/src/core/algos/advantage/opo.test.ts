import { describe, expect, it } from 'vitest';
import { expectAllClose } from '../testing/assertions.ts';
import { computeOpoOutcomeAdvantage } from './opo.ts';

const f64 = (xs: number[]) => Float64Array.from(xs);

describe('computeOpoOutcomeAdvantage (verl compute_opo_outcome_advantage)', () => {
  it('subtracts the length-weighted group mean (numpy opo_3_1)', () => {
    // group 7: lengths 2, 3, 1 and scores 1.5, 3, 0.7 -> baseline (3 + 9 + 0.7) / 6 = 2.11667; group 9 alone: baseline 0.
    const { advantages, returns } = computeOpoOutcomeAdvantage({
      shape: { batchSize: 4, seqLen: 3 },
      tokenLevelRewards: f64([1.0, 0.5, 0.0, 2.0, 1.0, 0.0, 0.5, 0.2, 0.0, 1.5, 0.8, 0.0]),
      responseMask: f64([1, 1, 0, 1, 1, 1, 1, 0, 0, 1, 1, 1]),
      index: [7, 7, 7, 9],
    });
    expectAllClose(advantages, [-0.61666656, -0.61666656, 0, 0.88333344, 0.88333344, 0.88333344, -1.41666651, 0, 0, 2.3, 2.3, 2.3], 1e-6);
    expect(returns).toBe(advantages);
  });
});
