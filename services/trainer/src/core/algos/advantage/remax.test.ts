import { describe, it } from 'vitest';
import { expectAllClose, expectInvalid } from '../testing/assertions.ts';
import { computeRemaxOutcomeAdvantage } from './remax.ts';

const f64 = (xs: number[]) => Float64Array.from(xs);

describe('computeRemaxOutcomeAdvantage (verl compute_remax_outcome_advantage)', () => {
  const input = {
    shape: { batchSize: 3, seqLen: 4 },
    tokenLevelRewards: f64([0, 0, 1, 0, 0.2, 0, 0.5, 0, 0, 1, 0, 0]),
    responseMask: f64([1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0]),
    rewardBaselines: f64([0.5, 1.0, 0.0]),
  };

  it('returns reward-to-go and subtracts the greedy baseline on response tokens (hand + numpy remax_*)', () => {
    const { advantages, returns } = computeRemaxOutcomeAdvantage(input);
    expectAllClose(returns, [1, 1, 1, 0, 0.7, 0.5, 0.5, 0, 1, 1, 0, 0], 1e-6);
    expectAllClose(advantages, [0.5, 0.5, 0.5, 0, -0.3, -0.5, -0.5, -1, 1, 1, 0, 0], 1e-6);
  });

  it('needs one baseline per sample', () => {
    expectInvalid(() => computeRemaxOutcomeAdvantage({ ...input, rewardBaselines: f64([1]) }), 'rewardBaselines');
  });
});
