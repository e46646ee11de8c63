import { createRng } from '@rl/service-kit/core';
import { describe, expect, it } from 'vitest';
import { expectAllClose, expectInvalid, randomFloats } from '../testing/assertions.ts';
import { computeGaeAdvantageReturn } from './gae.ts';
import { maskedMean } from '../masked.ts';

const f64 = (xs: number[]) => Float64Array.from(xs);
const shape = { batchSize: 3, seqLen: 4 };
const R = f64([0, 0, 1, 0, 0.2, 0, 0.5, 0, 0, 1, 0, 0]);
const M = f64([1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0]);
const V = f64([0.5, 0.6, 0.7, 9.0, 0.1, -0.2, 0.3, 0.4, 1.0, 0.5, -3.0, 2.0]);

describe('computeGaeAdvantageReturn (verl compute_gae_advantage_return)', () => {
  it('matches hand-computed returns of row 0 (gamma 0.9, lam 0.8)', () => {
    // t=3 masked: nothing carried; t=2: delta = 1 - 0.7 = 0.3; t=1: delta = 0.9*0.7 - 0.6 = 0.03,
    // gae = 0.03 + 0.72*0.3 = 0.246; t=0: delta = 0.9*0.6 - 0.5 = 0.04, gae = 0.04 + 0.72*0.246 = 0.21712.
    const { returns } = computeGaeAdvantageReturn({ shape, tokenLevelRewards: R, values: V, responseMask: M, gamma: 0.9, lam: 0.8 });
    expectAllClose(returns.subarray(0, 4), [0.71712, 0.846, 1.0, 9.0], 1e-6);
  });

  it('matches the numpy re-statement of verl (testdata/verl-reference.py gae_adv/gae_ret)', () => {
    const { advantages, returns } = computeGaeAdvantageReturn({ shape, tokenLevelRewards: R, values: V, responseMask: M, gamma: 0.9, lam: 0.8 });
    expectAllClose(
      advantages,
      [-0.01894736, 0.06855039, 0.23215441, -0.67675626, 0.53332138, 1.34054077, 0.14732277, -1.88863719, -1.2523998, 0.83809483, -0.67675626, -0.67675626],
      2e-6,
    );
    expectAllClose(returns, [0.71711999, 0.84600002, 1.0, 9.0, 0.49940482, 0.46584004, 0.57200003, 0.0, 0.80999994, 1.0, -3.0, 2.0], 2e-6);
    expect(maskedMean(advantages, M)).toBeCloseTo(0, 6);
  });

  // Port of verl tests/trainer/ppo/test_core_algos_on_cpu.py::test_multi_turn_compute_gae_advantage_return:
  // values at observation tokens (mask 0) must not change advantages, nor returns on response tokens.
  it.each([1, 2, 3, 4, 5])('skips observation tokens in multi-turn rollouts (seed %i)', (seed) => {
    const rng = createRng(seed);
    const u = (lo: number, hi: number) => lo + (hi - lo) * rng.next();
    const gamma = u(0, 1);
    const lam = u(0, 1);
    const rewards = f64([0.0, 0.0, 0.1, 0.1, 0.1, 0.0, 0.0, 0.1, 1.0, 0.0, 0.0]);
    const values1 = f64([u(-100, 100), u(0, 1), 4, 5, 6, u(-100, 0), u(0, 1), 7, 9, 0, 0]);
    const values2 = f64([u(0, 1), u(-100, 100), 4, 5, 6, u(0, 1), u(0, 100), 7, 9, 0, 0]);
    const mask = f64([0, 0, 1, 1, 1, 0, 0, 1, 1, 0, 0]);
    const s = { batchSize: 1, seqLen: 11 };
    const a = computeGaeAdvantageReturn({ shape: s, tokenLevelRewards: rewards, values: values1, responseMask: mask, gamma, lam });
    const b = computeGaeAdvantageReturn({ shape: s, tokenLevelRewards: rewards, values: values2, responseMask: mask, gamma, lam });
    expect(Array.from(a.advantages)).toEqual(Array.from(b.advantages));
    // torch.equal treats -0 and 0 as equal; adding 0 normalises the sign of zero.
    const masked = (x: Float32Array) => Array.from(x, (v, i) => v * (mask[i] as number) + 0);
    expect(masked(a.returns)).toEqual(masked(b.returns));
  });

  // Port of verl tests/trainer/config/test_algo_config_on_cpu.py::test_advantage_estimator_with_cfg.
  it('returns [batch, seqLen] outputs for gamma 0.99, lam 0.95', () => {
    const s = { batchSize: 2, seqLen: 5 };
    const out = computeGaeAdvantageReturn({
      shape: s,
      tokenLevelRewards: randomFloats(7, 10, -1, 1),
      values: randomFloats(8, 10, -1, 1),
      responseMask: new Float64Array(10).fill(1),
      gamma: 0.99,
      lam: 0.95,
    });
    expect(out.advantages).toHaveLength(10);
    expect(out.returns).toHaveLength(10);
    expect(out.advantages.every(Number.isFinite)).toBe(true);
  });

  it('names the field whose length does not match the shape', () => {
    expectInvalid(() => computeGaeAdvantageReturn({ shape, tokenLevelRewards: R, values: V.subarray(1), responseMask: M, gamma: 1, lam: 1 }), 'values');
  });
});
