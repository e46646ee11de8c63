import { createRng } from '@rl/service-kit/core';
import { describe, expect, it } from 'vitest';
import { expectInvalid } from '../algos.test-support.ts';
import { getPolicyLossFn, POLICY_LOSS_MODES, POLICY_LOSSES } from './registry.ts';
import { LOSS_FIXTURE } from './fixture.test-support.ts';

describe('policy loss registry (verl POLICY_LOSS_REGISTRY / get_policy_loss_fn)', () => {
  it('holds every mode verl registers at b178a3c', () => {
    expect([...POLICY_LOSS_MODES].sort()).toEqual(['bypass_mode', 'cispo', 'clip_cov', 'geo_mean', 'gpg', 'gspo', 'kl_cov', 'sapo', 'vanilla']);
  });

  it('throws invalid_params on an unknown or differently spelled name (verl raises ValueError)', () => {
    expectInvalid(() => getPolicyLossFn('clip-cov'), 'policyLossMode');
    expectInvalid(() => getPolicyLossFn('toString'), 'policyLossMode');
  });

  it.each(POLICY_LOSS_MODES)('%s returns a finite loss, one gradient per token and verl metric names', (mode) => {
    const r = POLICY_LOSSES[mode]({ ...LOSS_FIXTURE, rng: createRng(1), rolloutCorrection: {} });
    expect(Number.isFinite(r.pgLoss)).toBe(true);
    expect(r.dLogProb.length).toBe(8);
    for (const k of Object.keys(r.metrics)) expect(k).toMatch(/^(actor|rollout_corr)\//);
  });
});
