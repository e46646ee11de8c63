import { createRng } from '@rl/service-kit/core';
import { describe, expect, it } from 'vitest';
import { computeActorLoss } from './actor-loss.ts';
import { expectGradientMatches, expectInvalid, randomFloats, randomMask } from '../algos.test-support.ts';
import { computeEntropyLoss } from './entropy.ts';
import { computeKlLoss } from '../kl/loss.ts';
import { POLICY_LOSS_MODES, POLICY_LOSSES } from '../policy-loss/registry.ts';
import { computePolicyLossVanilla } from '../policy-loss/vanilla.ts';

const shape = { batchSize: 4, seqLen: 6 };
const n = 24;
const oldLogProb = randomFloats(81, n, -3, -0.1);
const offsets = randomFloats(82, n, -1, 1);
const logProb = oldLogProb.map((o, i) => o + (offsets[i] as number));
const base = {
  shape,
  oldLogProb,
  advantages: randomFloats(83, n, -2, 2),
  responseMask: randomMask(84, n),
  entropy: randomFloats(85, n, 0, 3),
  refLogProb: randomFloats(86, n, -3, 0),
  lossAggMode: 'seq-mean-token-sum-norm' as const,
  clipRatioLow: 0.2,
  clipRatioHigh: 0.28,
  entropyCoeff: 0.01,
  useKlLoss: true,
  klLossCoef: 0.1,
  klLossType: 'low_var_kl' as const,
  microBatchScale: 0.5,
};

describe('computeActorLoss (verl dp_actor update_policy / losses.ppo_loss)', () => {
  it('is (pg_loss - entropy_coeff * entropy + kl_coef * kl_loss) * scale, with verl metric names', () => {
    const r = computeActorLoss({ ...base, logProb });
    const pg = computePolicyLossVanilla({ ...base, logProb });
    const ent = computeEntropyLoss({ ...base }).entropyLoss;
    const kl = computeKlLoss({ ...base, logProb }).klLoss;
    expect(r.loss).toBeCloseTo((pg.pgLoss - 0.01 * ent + 0.1 * kl) * 0.5, 12);
    expect(r.metrics).toEqual({
      'actor/pg_loss': pg.pgLoss,
      'actor/pg_clipfrac': pg.pgClipfrac,
      'actor/ppo_kl': pg.ppoKl,
      'actor/pg_clipfrac_lower': pg.pgClipfracLower,
      'actor/entropy': ent,
      'actor/kl_loss': kl,
      'actor/kl_coef': 0.1,
    });
  });

  it('dLoss/dlogProb and dLoss/dEntropy match finite differences', () => {
    const r = computeActorLoss({ ...base, logProb });
    expectGradientMatches((x) => computeActorLoss({ ...base, logProb: x }).loss, logProb, r.dLogProb);
    const entropy = Float64Array.from(base.entropy);
    expectGradientMatches((x) => computeActorLoss({ ...base, logProb, entropy: x }).loss, entropy, r.dEntropy ?? []);
  });

  it('supports the gpg policy loss', () => {
    const r = computeActorLoss({ ...base, logProb, policyLossMode: 'gpg', useKlLoss: false });
    expectGradientMatches((x) => computeActorLoss({ ...base, logProb: x, policyLossMode: 'gpg', useKlLoss: false }).loss, logProb, r.dLogProb);
    expect(r.metrics['actor/pg_clipfrac']).toBeUndefined();
  });

  it.each(POLICY_LOSS_MODES)('dispatches policyLossMode %s through the registry (pg loss, metrics, gradient)', (mode) => {
    const extra = { rolloutCorrection: { rolloutIs: 'token' as const }, clipCovRatio: 0.2, clipCovLb: -5, clipCovUb: 5, klCovRatio: 0.2 };
    const r = computeActorLoss({ ...base, ...extra, logProb, policyLossMode: mode, useKlLoss: false, entropyCoeff: 0, microBatchScale: 1, rng: createRng(5) });
    const pg = POLICY_LOSSES[mode]({ ...base, ...extra, logProb, rng: createRng(5) });
    expect(r.loss).toBe(pg.pgLoss);
    expect(r.metrics).toMatchObject({ ...pg.metrics, 'actor/pg_loss': pg.pgLoss });
    expect(Array.from(r.dLogProb)).toEqual(Array.from(pg.dLogProb));
  });

  it('needs the reference log-probs for the KL loss and entropies for a non-zero entropy coefficient', () => {
    expectInvalid(() => computeActorLoss({ ...base, logProb, refLogProb: undefined }), 'refLogProb');
    expectInvalid(() => computeActorLoss({ ...base, logProb, entropy: undefined }), 'entropy');
  });
});
