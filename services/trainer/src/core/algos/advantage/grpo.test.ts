import { createRng } from '@rl/service-kit/core';
import { describe, expect, it } from 'vitest';
import { expectAllClose, expectInvalid } from '../testing/assertions.ts';
import { computeGrpoOutcomeAdvantage, computeGrpoVectorizedOutcomeAdvantage } from './grpo.ts';
import { computeGrpoPasskOutcomeAdvantage } from './grpo-passk.ts';
import { makeGroupIndex, randMask } from './testing/outcome.ts';

const f64 = (xs: number[]) => Float64Array.from(xs);
const shape = { batchSize: 4, seqLen: 3 };
// Rewards of verl tests/trainer/config/test_algo_config_on_cpu.py::test_grpo_advantage_estimator_with_cfg.
const RG = f64([1.0, 0.5, 0.0, 2.0, 1.0, 0.0, 0.5, 0.2, 0.0, 1.5, 0.8, 0.0]);
const MG = f64([1, 1, 0, 1, 1, 1, 1, 0, 0, 1, 1, 1]);

describe('computeGrpoOutcomeAdvantage (verl compute_grpo_outcome_advantage)', () => {
  it('normalises by the unbiased group std (verl test_algo_config rewards, numpy grpo_cfg)', () => {
    // scores 1.5, 3 | 0.7, 2.3: each group is mean ± 1 std/sqrt(2) -> ±0.70710617 after the 1e-6 epsilon.
    const { advantages, returns } = computeGrpoOutcomeAdvantage({
      shape,
      tokenLevelRewards: RG,
      responseMask: new Float64Array(12).fill(1),
      index: [0, 0, 1, 1],
      normAdvByStdInGrpo: true,
    });
    expectAllClose(
      advantages,
      [-0.70710617, -0.70710617, -0.70710617, 0.70710617, 0.70710617, 0.70710617, -0.70710623, -0.70710623, -0.70710623, 0.70710617, 0.70710617, 0.70710617],
      1e-6,
    );
    expect(returns).toBe(advantages);
  });

  it('multiplies by the response mask (numpy grpo_mask)', () => {
    const { advantages } = computeGrpoOutcomeAdvantage({ shape, tokenLevelRewards: RG, responseMask: MG, index: ['p', 'p', 'q', 'q'] });
    expectAllClose(advantages, [-0.70710617, -0.70710617, 0, 0.70710617, 0.70710617, 0.70710617, -0.70710623, 0, 0, 0.70710617, 0.70710617, 0.70710617], 1e-6);
  });

  it('uses mean 0 and std 1 for single-response groups (numpy grpo_single)', () => {
    const { advantages } = computeGrpoOutcomeAdvantage({ shape, tokenLevelRewards: RG, responseMask: MG, index: [0, 0, 1, 2] });
    // 0.7 / (1 + 1e-6) and 2.3 / (1 + 1e-6)
    expectAllClose(advantages.subarray(6), [0.69999933, 0, 0, 2.29999781, 2.29999781, 2.29999781], 1e-6);
  });

  it('is Dr.GRPO (score - group mean) without std normalisation (numpy drgrpo_mask)', () => {
    const { advantages } = computeGrpoOutcomeAdvantage({ shape, tokenLevelRewards: RG, responseMask: MG, index: [0, 0, 1, 1], normAdvByStdInGrpo: false });
    expectAllClose(advantages, [-0.75, -0.75, 0, 0.75, 0.75, 0.75, -0.8, 0, 0, 0.8, 0.8, 0.8], 1e-6);
  });

  it('gives 0 to a group whose scores are all equal', () => {
    const { advantages } = computeGrpoOutcomeAdvantage({
      shape: { batchSize: 2, seqLen: 1 },
      tokenLevelRewards: f64([1, 1]),
      responseMask: f64([1, 1]),
      index: ['u', 'u'],
    });
    expectAllClose(advantages, [0, 0]);
  });

  it('requires one group label per sample', () => {
    expectInvalid(() => computeGrpoOutcomeAdvantage({ shape, tokenLevelRewards: RG, responseMask: MG, index: [0, 0, 1] }), 'index');
  });
});

describe('computeGrpoVectorizedOutcomeAdvantage (verl grpo_vectorized via group_mean_std)', () => {
  // Port of verl test_grpo_and_vectorized_equivalence: same sizes and group layout, our seeded RNG.
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
    const a = computeGrpoOutcomeAdvantage({ shape: s, tokenLevelRewards, responseMask, index });
    const b = computeGrpoVectorizedOutcomeAdvantage({ shape: s, tokenLevelRewards, responseMask, index });
    expectAllClose(a.advantages, b.advantages, 1e-5);
    expectAllClose(a.returns, b.returns, 1e-5);
  });

  it('floors the group variance at eps, unlike the loop version', () => {
    const input = { shape: { batchSize: 2, seqLen: 1 }, tokenLevelRewards: f64([0, 1e-4]), responseMask: f64([1, 1]), index: [0, 0] };
    // loop: std = 7.07e-5 -> ±0.6976; vectorized: std = sqrt(1e-6) = 1e-3 -> ±5e-5 / 1.001e-3
    expectAllClose(computeGrpoOutcomeAdvantage(input).advantages, [-5e-5 / (Math.SQRT1_2 * 1e-4 + 1e-6), 5e-5 / (Math.SQRT1_2 * 1e-4 + 1e-6)], 1e-5);
    expectAllClose(computeGrpoVectorizedOutcomeAdvantage(input).advantages, [-5e-5 / 1.001e-3, 5e-5 / 1.001e-3], 1e-6);
  });
});

describe('computeGrpoPasskOutcomeAdvantage (verl compute_grpo_passk_outcome_advantage)', () => {
  it('gives only the best response r_max - r_second_max', () => {
    const input = { shape: { batchSize: 4, seqLen: 1 }, tokenLevelRewards: f64([0, 1, 0.25, 1]), responseMask: f64([1, 1, 1, 1]) };
    const raw = computeGrpoPasskOutcomeAdvantage({ ...input, index: [0, 0, 0, 0], normAdvByStdInGrpo: false });
    expectAllClose(raw.advantages, [0, 0, 0, 0]); // tie between rows 1 and 3 -> advantage 0
    // 1 - 0.5 = 0.5, divided by the unbiased std of [0, 1, 0.25, 0.5] plus 1e-6.
    const two = computeGrpoPasskOutcomeAdvantage({ ...input, tokenLevelRewards: f64([0, 1, 0.25, 0.5]), index: [0, 0, 0, 0] });
    const std = Math.sqrt(((0 - 0.4375) ** 2 + (1 - 0.4375) ** 2 + (0.25 - 0.4375) ** 2 + (0.5 - 0.4375) ** 2) / 3);
    expectAllClose(two.advantages, [0, 0.5 / (std + 1e-6), 0, 0], 1e-6);
  });

  it('needs at least two samples per group', () => {
    expectInvalid(
      () =>
        computeGrpoPasskOutcomeAdvantage({
          shape: { batchSize: 3, seqLen: 1 },
          tokenLevelRewards: f64([0, 1, 2]),
          responseMask: f64([1, 1, 1]),
          index: [0, 0, 1],
        }),
      'index',
    );
  });
});
