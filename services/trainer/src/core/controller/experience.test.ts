import { ErrorCode } from '@rl/service-kit/core';
import { describe, expect, it } from 'vitest';
import { AlgoConfig } from '../algos/index.ts';
import { buildExperience, row, type ScoredTrajectory } from './experience.ts';

const traj = (uid: string, len: number, score: number): ScoredTrajectory => ({
  uid,
  responseIds: Array.from({ length: len }, (_, i) => i + 4),
  responseMask: Array(len).fill(1),
  score,
  oldLogprobs: Array(len).fill(-1),
});

describe('buildExperience', () => {
  it('pads responses, puts the score on the last response token and computes GRPO advantages per group', () => {
    const grpo = AlgoConfig.parse({ adv_estimator: 'grpo' });
    const x = buildExperience([traj('a', 2, 1), traj('a', 3, 0), traj('b', 1, 0.5), traj('b', 1, 0.5)], grpo);
    expect(x.shape).toEqual({ batchSize: 4, seqLen: 3 });
    expect(row(x.tokenLevelScores, x.shape, 0, 3)).toEqual([0, 1, 0]);
    expect(row(x.tokenLevelScores, x.shape, 1, 3)).toEqual([0, 0, 0]);
    expect(row(x.responseMask, x.shape, 0, 3)).toEqual([1, 1, 0]);
    // Group a: scores 1 and 0 -> mean 0.5, unbiased std sqrt(0.5) -> +-0.7071 (eps 1e-6) on every response token.
    const a0 = row(x.advantages, x.shape, 0, 2);
    const a1 = row(x.advantages, x.shape, 1, 3);
    for (const v of a0) expect(v).toBeCloseTo(0.5 / Math.sqrt(0.5), 4);
    for (const v of a1) expect(v).toBeCloseTo(-0.5 / Math.sqrt(0.5), 4);
    expect(row(x.advantages, x.shape, 0, 3)[2]).toBe(0); // padding stays 0
    // Group b: equal scores -> zero advantage.
    expect(row(x.advantages, x.shape, 2, 1)).toEqual([0]);
  });

  it('subtracts beta * KL from the rewards when use_kl_in_reward is on', () => {
    const cfg = AlgoConfig.parse({ adv_estimator: 'grpo', use_kl_in_reward: true, kl_ctrl: { type: 'fixed', kl_coef: 0.5 } });
    const t = { ...traj('a', 2, 1), refLogprobs: [-2, -2] };
    const kl = { value: 0.5, update: () => {}, restore: () => {} };
    const x = buildExperience([t, { ...traj('a', 2, 0), refLogprobs: [-1, -1] }], cfg, kl);
    // kl = old - ref = 1 on each token of the first row: rewards = [0 - 0.5, 1 - 0.5].
    expect(row(x.tokenLevelRewards, x.shape, 0, 2)).toEqual([-0.5, 0.5]);
    expect(x.metrics['actor/reward_kl_penalty_coeff']).toBe(0.5);
  });

  it('refuses use_kl_in_reward without reference log-probs or a KL controller, as a bug (internal)', () => {
    const cfg = AlgoConfig.parse({ adv_estimator: 'grpo', use_kl_in_reward: true, kl_ctrl: { type: 'fixed', kl_coef: 0.5 } });
    const kl = { value: 0.5, update: () => {}, restore: () => {} };
    expect(() => buildExperience([traj('a', 2, 1), traj('a', 2, 0)], cfg, kl)).toThrow(expect.objectContaining({ code: ErrorCode.Internal }));
    expect(() => buildExperience([{ ...traj('a', 2, 1), refLogprobs: [-1, -1] }], cfg)).toThrow(expect.objectContaining({ code: ErrorCode.Internal }));
  });

  it('uses dense per-token rewards in place of the last-token score when given (token-level estimators)', () => {
    const rpp = AlgoConfig.parse({ adv_estimator: 'reinforce_plus_plus', gamma: 1 });
    const t = { ...traj('a', 3, 0.5), tokenRewards: [0.25, 0.25, 0] };
    const x = buildExperience([t, { ...traj('b', 3, 0), tokenRewards: [0, 0, 0] }], rpp);
    expect(row(x.tokenLevelScores, x.shape, 0, 3)).toEqual([0.25, 0.25, 0]);
    // Returns-to-go with gamma 1: [0.5, 0.25, 0] then whitened over the batch: earlier tokens get more credit.
    const a = row(x.advantages, x.shape, 0, 3);
    expect(a[0]!).toBeGreaterThan(a[1]!);
    expect(a[1]!).toBeGreaterThan(a[2]!);
  });
});
