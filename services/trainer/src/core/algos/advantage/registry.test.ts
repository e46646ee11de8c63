import { describe, expect, it } from 'vitest';
import { ADV_ESTIMATORS, AdvEstimatorName, AlgoConfig, computeAdvantage, getAdvEstimatorFn } from './registry.ts';
import { expectAllClose, expectInvalid } from '../testing/assertions.ts';
import { computeGrpoOutcomeAdvantage } from './grpo.ts';

const f64 = (xs: number[]) => Float64Array.from(xs);
const base = {
  shape: { batchSize: 4, seqLen: 3 },
  tokenLevelRewards: f64([1.0, 0.5, 0.0, 2.0, 1.0, 0.0, 0.5, 0.2, 0.0, 1.5, 0.8, 0.0]),
  responseMask: f64([1, 1, 0, 1, 1, 1, 1, 0, 0, 1, 1, 1]),
  index: [0, 0, 1, 1],
  values: f64([0.1, 0.2, 0.3, 0.1, 0.2, 0.3, 0.1, 0.2, 0.3, 0.1, 0.2, 0.3]),
  rewardBaselines: f64([1, 1, 1, 1]),
};

describe('AlgoConfig', () => {
  it("has verl's AlgoConfig defaults", () => {
    expect(AlgoConfig.parse({})).toEqual({
      gamma: 1.0,
      lam: 1.0,
      adv_estimator: 'gae',
      norm_adv_by_std_in_grpo: true,
      use_kl_in_reward: false,
      kl_penalty: 'kl',
      kl_ctrl: { type: 'fixed', kl_coef: 0.001, horizon: 10000, target_kl: 0.1 },
    });
  });

  it('rejects unknown keys and estimators', () => {
    expect(AlgoConfig.safeParse({ gama: 0.9 }).success).toBe(false);
    expect(AlgoConfig.safeParse({ adv_estimator: 'vtrace' }).success).toBe(false);
  });
});

// Ports of verl TestRegisterAdvEst::test_get_adv_estimator_fn_* (the registry here is a closed table).
describe('getAdvEstimatorFn', () => {
  it('has an entry for every implemented name', () => {
    expect(Object.keys(ADV_ESTIMATORS).sort()).toEqual([...AdvEstimatorName.options].sort());
  });

  it('returns the estimator for a valid name', () => {
    const config = AlgoConfig.parse({ adv_estimator: 'grpo' });
    expectAllClose(getAdvEstimatorFn('grpo')(base, config).advantages, computeGrpoOutcomeAdvantage(base).advantages);
  });

  it('rejects unknown names and is case-sensitive', () => {
    expectInvalid(() => getAdvEstimatorFn('invalid_name'), 'adv_estimator');
    expectInvalid(() => getAdvEstimatorFn('GAE'), 'adv_estimator');
  });
});

describe('computeAdvantage', () => {
  it.each(AdvEstimatorName.options)('runs "%s" with the inputs it needs', (name) => {
    const out = computeAdvantage(base, AlgoConfig.parse({ adv_estimator: name, gamma: 0.9, lam: 0.8 }));
    expect(out.advantages).toHaveLength(12);
    expect(out.advantages.every(Number.isFinite)).toBe(true);
  });

  it('passes norm_adv_by_std_in_grpo through (Dr.GRPO)', () => {
    const out = computeAdvantage(base, AlgoConfig.parse({ adv_estimator: 'grpo', norm_adv_by_std_in_grpo: false }));
    expectAllClose(out.advantages, [-0.75, -0.75, 0, 0.75, 0.75, 0.75, -0.8, 0, 0, 0.8, 0.8, 0.8], 1e-6);
  });

  it('names the missing input', () => {
    const { values: _v, rewardBaselines: _b, index: _i, ...bare } = base;
    expectInvalid(() => computeAdvantage(bare, AlgoConfig.parse({ adv_estimator: 'gae' })), 'values');
    expectInvalid(() => computeAdvantage(bare, AlgoConfig.parse({ adv_estimator: 'remax' })), 'rewardBaselines');
    expectInvalid(() => computeAdvantage(bare, AlgoConfig.parse({ adv_estimator: 'rloo' })), 'index');
  });
});
