import { describe, expect, it } from 'vitest';
import { expectAllClose } from '../testing/assertions.ts';
import { maskedMean } from '../masked.ts';
import { computeReinforcePlusPlusBaselineOutcomeAdvantage, computeReinforcePlusPlusOutcomeAdvantage } from './reinforce-plus-plus.ts';

const f64 = (xs: number[]) => Float64Array.from(xs);

describe('computeReinforcePlusPlusOutcomeAdvantage (verl compute_reinforce_plus_plus_outcome_advantage)', () => {
  const input = {
    shape: { batchSize: 3, seqLen: 4 },
    tokenLevelRewards: f64([0, 0, 1, 0, 0.2, 0, 0.5, 0, 0, 1, 0, 0]),
    responseMask: f64([1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0]),
    gamma: 0.9,
  };

  it('discounts token rewards backwards and restarts after the mask ends (hand + numpy rpp_ret)', () => {
    // row 1: 0.5, 0.45, 0.2 + 0.9 * 0.45 = 0.605
    const { returns } = computeReinforcePlusPlusOutcomeAdvantage(input);
    expectAllClose(returns, [0.81, 0.9, 1, 0, 0.605, 0.45, 0.5, 0, 0.9, 1, 0, 0], 1e-6);
  });

  it('whitens the returns over the mask and zeroes padding (numpy rpp_adv)', () => {
    const { advantages } = computeReinforcePlusPlusOutcomeAdvantage(input);
    expectAllClose(advantages, [0.37870076, 0.65136552, 0.95432639, 0, -0.24236873, -0.71195781, -0.56047738, -2.07528114, 0.65136552, 0.95432639, 0, 0], 2e-6);
    expect(maskedMean(advantages, input.responseMask)).toBeCloseTo(0, 6);
  });
});

describe('computeReinforcePlusPlusBaselineOutcomeAdvantage (verl reinforce_plus_plus_baseline)', () => {
  it('subtracts the group mean, then whitens over the batch mask (numpy rppb_3_1)', () => {
    const { advantages } = computeReinforcePlusPlusBaselineOutcomeAdvantage({
      shape: { batchSize: 4, seqLen: 3 },
      tokenLevelRewards: f64([1.0, 0.5, 0.0, 2.0, 1.0, 0.0, 0.5, 0.2, 0.0, 1.5, 0.8, 0.0]),
      responseMask: f64([1, 1, 0, 1, 1, 1, 1, 0, 0, 1, 1, 1]),
      index: [7, 7, 7, 9],
    });
    expectAllClose(advantages, [-1.00623477, -1.00623477, 0, 0.19590417, 0.19590417, 0.19590417, -1.6473757, 0, 0, 1.02404428, 1.02404428, 1.02404428], 2e-6);
  });
});
