import { describe, it } from 'vitest';
import { expectAllClose } from '../testing/assertions.ts';
import { computeGpgOutcomeAdvantage } from './gpg.ts';

const f64 = (xs: number[]) => Float64Array.from(xs);

describe('computeGpgOutcomeAdvantage (verl compute_gpg_outcome_advantage)', () => {
  const input = {
    shape: { batchSize: 4, seqLen: 2 },
    tokenLevelRewards: f64([1, 0, 0, 0, 0, 0, 2, 0]),
    responseMask: f64([1, 1, 1, 1, 1, 1, 1, 1]),
    index: [7, 7, 7, 9],
  };

  it('scales score - group mean by batch / non-zero scores (numpy gpg_3_1)', () => {
    // alpha = 4 / 2 = 2; group 7 scores 1, 0, 0 (mean 1/3); group 9 alone (mean 0, score 2).
    expectAllClose(computeGpgOutcomeAdvantage(input).advantages, [4 / 3, 4 / 3, -2 / 3, -2 / 3, -2 / 3, -2 / 3, 4, 4], 1e-6);
  });

  it('divides by f_norm', () => {
    expectAllClose(computeGpgOutcomeAdvantage({ ...input, fNorm: 2 }).advantages, [2 / 3, 2 / 3, -1 / 3, -1 / 3, -1 / 3, -1 / 3, 2, 2], 1e-6);
  });

  it('uses alpha = batch size when every score is zero', () => {
    const zero = { ...input, tokenLevelRewards: new Float64Array(8) };
    expectAllClose(computeGpgOutcomeAdvantage(zero).advantages, new Float64Array(8));
  });
});
