import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PolicyLossSchema } from '../policy/protocol.ts';
import { PolicyLossSection, RolloutCorrectionSection, SapoTemperatureFields } from './policy-loss-config.ts';

describe('actor.policy_loss / algorithm.rollout_correction job-config sections', () => {
  it('default to verl’s PolicyLossConfig and rollout_correction.yaml values', () => {
    expect(PolicyLossSection.parse({})).toEqual({
      loss_mode: 'vanilla',
      clip_cov_ratio: 0.0002,
      clip_cov_lb: 1,
      clip_cov_ub: 5,
      kl_cov_ratio: 0.0002,
      ppo_kl_coef: 0.1,
    });
    expect(z.object(SapoTemperatureFields).parse({})).toEqual({ tau_pos: 1, tau_neg: 1.05 });
    expect(RolloutCorrectionSection.parse({})).toEqual({
      rollout_is: null,
      rollout_is_threshold: 2,
      rollout_is_batch_normalize: false,
      rollout_rs: null,
      rollout_rs_threshold: null,
      bypass_mode: false,
      loss_type: 'ppo_clip',
    });
  });

  it('every parsed section is accepted by the worker protocol (policy_loss + rollout_correction)', () => {
    const { bypass_mode: _bypass, ...rc } = RolloutCorrectionSection.parse({
      rollout_is: 'sequence',
      rollout_rs: 'seq_mean_k1',
      rollout_rs_threshold: '0.999_1.001',
      bypass_mode: true,
    });
    const parsed = PolicyLossSchema.parse({ ...PolicyLossSection.parse({ loss_mode: 'bypass_mode' }), rollout_correction: rc });
    expect(parsed.rollout_correction.rollout_rs).toBe('seq_mean_k1');
  });

  it('rejects what verl would fail on', () => {
    expect(PolicyLossSection.safeParse({ loss_mode: 'clip-cov' }).success).toBe(false);
    expect(PolicyLossSection.safeParse({ clip_cov_ratio: 0 }).success).toBe(false);
    expect(PolicyLossSection.safeParse({ kl_cov_ratio: 1.5 }).success).toBe(false);
    expect(PolicyLossSection.safeParse({ extra: 1 }).success).toBe(false);
    expect(RolloutCorrectionSection.safeParse({ rollout_rs: 'token_k4', rollout_rs_threshold: 2 }).success).toBe(false);
    expect(RolloutCorrectionSection.safeParse({ rollout_rs: 'token_k1' }).success).toBe(false);
  });
});
