import { describe, expect, it } from 'vitest';
import { expectAllClose, expectInvalid } from '../algos.test-support.ts';
import { computePolicyLossBypassMode } from './bypass.ts';
import { expectGradientsForAllModes, FIXTURE_IS_WEIGHTS, LOSS_FIXTURE } from './fixture.test-support.ts';
import type { RolloutCorrectionParams } from '../rollout-correction/correction.ts';
import bypassExpected from '../testdata/bypass-mode-expected.json' with { type: 'json' };

// Expected metrics and losses: `bypass` of testdata/verl-reference.py, written to bypass-mode-expected.json.
// Imported as a module (no file reads in core, tests included).
const EXPECTED: Record<string, Record<string, number>> = bypassExpected;

const CASES: [string, RolloutCorrectionParams, 'token-mean' | 'seq-mean-token-mean' | 'seq-mean-token-sum'][] = [
  [
    'reinforce_token_is_rs',
    { lossType: 'reinforce', rolloutIs: 'token', rolloutIsThreshold: 2, rolloutRs: 'token_k1,seq_mean_k3', rolloutRsThreshold: '0.3_2.5,0.5' },
    'token-mean',
  ],
  [
    'ppo_clip_seq_is_norm',
    {
      lossType: 'ppo_clip',
      rolloutIs: 'sequence',
      rolloutIsThreshold: 1.5,
      rolloutIsBatchNormalize: true,
      rolloutRs: 'seq_sum_k1,seq_max_k2,token_k3,seq_sum_k2',
      rolloutRsThreshold: '3.0',
    },
    'seq-mean-token-mean',
  ],
  [
    'reinforce_seq_is_norm',
    {
      lossType: 'reinforce',
      rolloutIs: 'sequence',
      rolloutIsThreshold: 3,
      rolloutIsBatchNormalize: true,
      rolloutRs: 'seq_mean_k1,token_k2,seq_mean_k2,token_k1,seq_max_k3,seq_sum_k3,seq_mean_k3',
      rolloutRsThreshold: '0.2_5,2,2,0.2_5,2,4,2',
    },
    'seq-mean-token-sum',
  ],
  ['ppo_clip_token_is_norm', { lossType: 'ppo_clip', rolloutIs: 'token', rolloutIsThreshold: 1.2, rolloutIsBatchNormalize: true }, 'token-mean'],
];

describe('computePolicyLossBypassMode (verl compute_policy_loss_bypass_mode + rollout_corr_helper)', () => {
  it.each(CASES)('matches the numpy re-statement of verl, every metric included: %s', (name, rc, mode) => {
    const expected = EXPECTED[name] as Record<string, number>;
    const r = computePolicyLossBypassMode({ ...LOSS_FIXTURE, lossAggMode: mode, rolloutCorrection: rc });
    const { pg_loss: pgLoss, ...metrics } = expected;
    expect(Object.keys(r.metrics).sort()).toEqual(Object.keys(metrics).sort());
    // The *_std metrics are sqrt(E[x^2] - E[x]^2): with every weight at the same bound, float32 gives
    // exactly 0 while double precision keeps the 1e-8 of the masked-mean denominators (~1e-4 after sqrt).
    const keys = Object.keys(metrics).sort();
    const exact = keys.filter((k) => !k.endsWith('_std'));
    const stds = keys.filter((k) => k.endsWith('_std'));
    expectAllClose([r.pgLoss, ...exact.map((k) => r.metrics[k] as number)], [pgLoss as number, ...exact.map((k) => metrics[k] as number)], 2e-6);
    expectAllClose(
      stds.map((k) => r.metrics[k] as number),
      stds.map((k) => metrics[k] as number),
      1e-4,
    );
  });

  it('ppo_clip ignores incoming IS weights and equals vanilla PPO when nothing is rejected', () => {
    const plain = computePolicyLossBypassMode({ ...LOSS_FIXTURE, rolloutCorrection: {} });
    const weighted = computePolicyLossBypassMode({ ...LOSS_FIXTURE, rolloutCorrection: {}, rolloutIsWeights: FIXTURE_IS_WEIGHTS });
    expect(weighted.pgLoss).toBe(plain.pgLoss);
    expect(plain.pgLoss).toBeCloseTo(0.56383526, 6);
    expect(plain.metrics['rollout_corr/kl']).toBeDefined();
    expect(plain.metrics['rollout_corr/rollout_is_mean']).toBeUndefined();
  });

  it('raises like verl: no rollout_correction, an all-masked batch, rollout_rs without a threshold, a bad loss_type', () => {
    expectInvalid(() => computePolicyLossBypassMode({ ...LOSS_FIXTURE }), 'rolloutCorrection');
    expectInvalid(() => computePolicyLossBypassMode({ ...LOSS_FIXTURE, responseMask: new Float64Array(8), rolloutCorrection: {} }), 'responseMask');
    expectInvalid(() => computePolicyLossBypassMode({ ...LOSS_FIXTURE, rolloutCorrection: { rolloutRs: 'token_k2' } }), 'rolloutRsThreshold');
    expectInvalid(() => computePolicyLossBypassMode({ ...LOSS_FIXTURE, rolloutCorrection: { lossType: 'x' as 'reinforce' } }), 'rolloutCorrection.lossType');
  });

  it('a rejected row gets no gradient; the IS weights are constants (torch.no_grad)', () => {
    const r = computePolicyLossBypassMode({ ...LOSS_FIXTURE, rolloutCorrection: CASES[0]?.[1] as RolloutCorrectionParams });
    // seq_mean_k3 rejects row 1 (its mean k3 ~ 0.99 > 0.5).
    expectAllClose(Array.from(r.dLogProb.slice(4)).map(Math.abs), [0, 0, 0, 0], 0);
  });

  it.each(CASES)('dLoss/dlogProb matches finite differences with the correction held fixed: %s', (_name, rc) => {
    // Loose thresholds so that the random inputs keep some tokens.
    expectGradientsForAllModes(computePolicyLossBypassMode, { rolloutCorrection: { ...rc, rolloutRs: null } });
    expectGradientsForAllModes(computePolicyLossBypassMode, { rolloutCorrection: { ...rc, rolloutRs: 'seq_max_k2', rolloutRsThreshold: 0.8 } });
  });
});
