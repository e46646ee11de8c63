import { createRng } from '@rl/service-kit/core';
import { describe, it } from 'vitest';
import { expectAllClose } from '../testing/assertions.ts';
import { makeGroupIndex, randMask } from './testing/outcome.ts';
import { computeRlooOutcomeAdvantage, computeRlooVectorizedOutcomeAdvantage } from './rloo.ts';

const f64 = (xs: number[]) => Float64Array.from(xs);
const shape = { batchSize: 4, seqLen: 3 };
const RG = f64([1.0, 0.5, 0.0, 2.0, 1.0, 0.0, 0.5, 0.2, 0.0, 1.5, 0.8, 0.0]);
const MG = f64([1, 1, 0, 1, 1, 1, 1, 0, 0, 1, 1, 1]);

describe('computeRlooOutcomeAdvantage (verl compute_rloo_outcome_advantage)', () => {
  it('subtracts the mean of the other responses; a lone response keeps its score (numpy rloo_3_1)', () => {
    // group 7 = scores 1.5, 3, 0.7: 1.5 - (3 + 0.7)/2 = -0.35, 3 - 1.1 = 1.9, 0.7 - 2.25 = -1.55; group 9 alone: 2.3.
    const { advantages } = computeRlooOutcomeAdvantage({ shape, tokenLevelRewards: RG, responseMask: MG, index: [7, 7, 7, 9] });
    expectAllClose(advantages, [-0.35, -0.35, 0, 1.9, 1.9, 1.9, -1.55, 0, 0, 2.3, 2.3, 2.3], 1e-6);
  });
});

describe('computeRlooVectorizedOutcomeAdvantage (verl rloo_vectorized)', () => {
  it('gives a lone response 0 instead of its score', () => {
    const { advantages } = computeRlooVectorizedOutcomeAdvantage({ shape, tokenLevelRewards: RG, responseMask: MG, index: [7, 7, 7, 9] });
    expectAllClose(advantages, [-0.35, -0.35, 0, 1.9, 1.9, 1.9, -1.55, 0, 0, 0, 0, 0], 1e-6);
  });

  // Port of verl test_rloo_and_vectorized_equivalence: same sizes and group layout, our seeded RNG.
  it.each([
    [64, 128, 5, 0],
    [128, 256, 8, 1],
    [512, 512, 10, 2],
  ])('agrees with the loop version (batch %i, seqLen %i, %i groups, seed %i)', (batchSize, seqLen, numGroups, seed) => {
    const rng = createRng(seed);
    const index = makeGroupIndex(rng, batchSize, numGroups);
    const responseMask = randMask(rng, batchSize, seqLen);
    const tokenLevelRewards = Float32Array.from(responseMask, (m) => m * (rng.next() * 2 - 1));
    const s = { batchSize, seqLen };
    const a = computeRlooOutcomeAdvantage({ shape: s, tokenLevelRewards, responseMask, index });
    const b = computeRlooVectorizedOutcomeAdvantage({ shape: s, tokenLevelRewards, responseMask, index });
    expectAllClose(a.advantages, b.advantages, 1e-5);
    expectAllClose(a.returns, b.returns, 1e-5);
  });
});
