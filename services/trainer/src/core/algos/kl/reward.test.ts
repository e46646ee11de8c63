import { describe, expect, it } from 'vitest';
import { expectAllClose } from '../testing/assertions.ts';
import { KlCtrlConfig, createKlController } from './controller.ts';
import { applyKlPenalty, computeRewards } from './reward.ts';

const f64 = (xs: number[]) => Float64Array.from(xs);

describe('computeRewards (verl compute_rewards)', () => {
  it('is scores - (old - ref) * kl_ratio', () => {
    expectAllClose(computeRewards(f64([1, 0]), f64([-1, -2]), f64([-1.5, -1]), 0.1), [1 - 0.05, 0.1], 1e-7);
  });
});

describe('applyKlPenalty (verl ray_trainer.apply_kl_penalty)', () => {
  const input = {
    shape: { batchSize: 2, seqLen: 4 },
    tokenLevelScores: f64([0, 0, 1, 0, 0, 0, 0, 0.5]),
    oldLogProbs: f64([-1.0, -0.5, -2.0, -9.0, -0.3, -0.3, -0.1, -0.2]),
    refLogProb: f64([-1.5, -0.5, -1.0, 0.0, -0.2, -0.6, -0.1, -0.9]),
    responseMask: f64([1, 1, 1, 0, 1, 1, 1, 1]),
  };

  it('subtracts beta * masked KL and reports the pre-update beta (numpy kl_reward_*)', () => {
    const ctrl = createKlController(KlCtrlConfig.parse({ type: 'adaptive', kl_coef: 0.001, target_kl: 0.01, horizon: 100 }));
    const { tokenLevelRewards, metrics } = applyKlPenalty(input, ctrl);
    // The masked-out -9.0 vs 0.0 token adds nothing; row KL means are (0.5 + 0 - 1)/3 and (-0.1 + 0.3 + 0 + 0.7)/4.
    expectAllClose(tokenLevelRewards, [-5e-4, 0, 1.001, 0, 1e-4, -3e-4, 0, 0.4993], 1e-7);
    expect(metrics['actor/reward_kl_penalty']).toBeCloseTo(0.02916666, 6);
    expect(metrics['actor/reward_kl_penalty_coeff']).toBe(0.001);
    // kl / target - 1 = 1.9 -> clipped to 0.2; n_steps = batch size 2: 1 + 0.2 * 2 / 100
    expect(ctrl.value).toBeCloseTo(0.001 * 1.004, 12);
  });

  it('uses the configured estimator', () => {
    const ctrl = createKlController(KlCtrlConfig.parse({ kl_coef: 1 }));
    const { tokenLevelRewards } = applyKlPenalty({ ...input, klPenalty: 'abs' }, ctrl);
    expect(tokenLevelRewards[0]).toBeCloseTo(-0.5, 7);
    expect(tokenLevelRewards[2]).toBeCloseTo(0, 7);
  });

  it('a "+" estimator penalises with the base estimator\'s value: the reward has no gradient to straighten', () => {
    // verl kl_penalty(..., "k3+") returns k2 - sg(k2) + sg(k3), whose value is k3's.
    const plus = applyKlPenalty({ ...input, klPenalty: 'low_var_kl+' }, createKlController(KlCtrlConfig.parse({ kl_coef: 1 })));
    const base = applyKlPenalty({ ...input, klPenalty: 'low_var_kl' }, createKlController(KlCtrlConfig.parse({ kl_coef: 1 })));
    expectAllClose(plus.tokenLevelRewards, base.tokenLevelRewards, 0);
    expect(plus.metrics['actor/reward_kl_penalty']).toBe(base.metrics['actor/reward_kl_penalty']);
  });
});
