import { describe, expect, it } from 'vitest';
import { LossAggMode } from '../loss/agg-loss.ts';
import { expectAllClose, expectGradientMatches, expectInvalid, randomFloats, randomMask } from '../algos.test-support.ts';
import { computePolicyLossVanilla } from './vanilla.ts';

const f64 = (xs: number[]) => Float64Array.from(xs);

describe('computePolicyLossVanilla (verl compute_policy_loss_vanilla)', () => {
  it('hand-computed single tokens: clip, pessimistic side, dual-clip', () => {
    const one = { batchSize: 1, seqLen: 1 };
    const run = (ratio: number, a: number) =>
      computePolicyLossVanilla({ shape: one, oldLogProb: f64([0]), logProb: f64([Math.log(ratio)]), advantages: f64([a]), responseMask: f64([1]) });
    // A > 0, ratio 1.5 > 1.2: clipped to -1.2, no gradient.
    // Fractions are masked means, so 1 / (1 + 1e-8).
    expect(run(1.5, 1).pgClipfrac).toBeCloseTo(1, 7);
    expect(run(1.5, 1).pgClipfracLower).toBe(0);
    expect(run(1.5, 1).pgLoss).toBeCloseTo(-1.2, 12);
    expect(run(1.5, 1).dLogProb[0]).toBeCloseTo(0, 12);
    // A > 0, ratio 0.5: the unclipped -0.5 is larger, gradient -A * ratio.
    expect(run(0.5, 1).pgLoss).toBeCloseTo(-0.5, 12);
    expect(run(0.5, 1).dLogProb[0]).toBeCloseTo(-0.5, 7);
    // A < 0, ratio 4: max(4, 1.2) = 4 > clip_ratio_c * |A| = 3 -> dual-clipped to 3, no gradient.
    expect(run(4, -1).pgClipfrac).toBe(0);
    expect(run(4, -1).pgClipfracLower).toBeCloseTo(1, 7);
    expect(run(4, -1).pgLoss).toBeCloseTo(3, 12);
    expect(run(4, -1).dLogProb[0]).toBeCloseTo(0, 12);
    // A < 0, ratio 2: 2 < 3, unclipped, gradient -A * ratio = 2.
    expect(run(2, -1).pgLoss).toBeCloseTo(2, 12);
    expect(run(2, -1).dLogProb[0]).toBeCloseTo(2, 6);
    // clip_ratio_high widens only the upper side: ratio 1.25 with high 0.28 is not clipped.
    const high = computePolicyLossVanilla({
      shape: one,
      oldLogProb: f64([0]),
      logProb: f64([Math.log(1.25)]),
      advantages: f64([1]),
      responseMask: f64([1]),
      clipRatioHigh: 0.28,
    });
    expect(high.pgLoss).toBeCloseTo(-1.25, 12);
  });

  // Inputs and expected (pg_loss, pg_clipfrac, ppo_kl, pg_clipfrac_lower): numpy pg_* of testdata/verl-reference.py.
  const fixture = {
    shape: { batchSize: 2, seqLen: 4 },
    oldLogProb: f64([-1, -1, -1, -1, -0.5, -0.5, -0.5, -0.5]),
    logProb: f64([-0.7, -1.5, -1.1, -0.2, -0.5, 1.0, -0.45, -2.0]),
    advantages: f64([1, 1, -1, -2, 0.5, -1, 2, -1.5]),
    responseMask: f64([1, 1, 1, 1, 1, 1, 1, 0]),
  };
  it.each([
    ['symmetric clip 0.2', {}, [0.56383526, 0.14285715, -0.29285714, 0.14285715]],
    ['clip 0.2 / 0.28', { clipRatioLow: 0.2, clipRatioHigh: 0.28 }, [0.55240673, 0.14285715, -0.29285714, 0.14285715]],
    [
      'seq-mean-token-mean, 0.2 / 0.28',
      { clipRatioLow: 0.2, clipRatioHigh: 0.28, lossAggMode: 'seq-mean-token-mean' as const },
      [0.49991658, 0.14285715, -0.29285714, 0.14285715],
    ],
  ])('matches the numpy re-statement of verl: %s', (_name, extra, expected) => {
    const r = computePolicyLossVanilla({ ...fixture, ...extra });
    expectAllClose([r.pgLoss, r.pgClipfrac, r.ppoKl, r.pgClipfracLower], expected, 1e-6);
  });

  it('on-policy (logProb == oldLogProb) the gradient is -A / tokens', () => {
    const r = computePolicyLossVanilla({ ...fixture, logProb: fixture.oldLogProb });
    expectAllClose(r.dLogProb, [-1 / 7, -1 / 7, 1 / 7, 2 / 7, -0.5 / 7, 1 / 7, -2 / 7, 0], 1e-7);
    expect(r.pgLoss).toBeCloseTo(-(1 + 1 - 1 - 2 + 0.5 - 1 + 2) / 7, 12);
    expect(r.ppoKl).toBe(0);
  });

  it('clamps the log-ratio to ±20 (ppo_kl uses the clamped value)', () => {
    const r = computePolicyLossVanilla({
      shape: { batchSize: 1, seqLen: 1 },
      oldLogProb: f64([-50]),
      logProb: f64([0]),
      advantages: f64([-1]),
      responseMask: f64([1]),
    });
    expect(r.ppoKl).toBeCloseTo(-20, 6);
    expect(r.pgLoss).toBeCloseTo(3, 12);
  });

  it('rollout IS weights multiply the per-token loss (verl test_rollout_corr_integration)', () => {
    const weights = f64([0.5, 1.5, 1, 1, 2, 1, 0.25, 1]);
    const plain = computePolicyLossVanilla(fixture);
    const weighted = computePolicyLossVanilla({ ...fixture, rolloutIsWeights: weights });
    expect(Number.isFinite(weighted.pgLoss)).toBe(true);
    expect(weighted.pgLoss).not.toBeCloseTo(plain.pgLoss, 3);
  });

  it.each(LossAggMode.options)('%s: dLoss/dlogProb matches finite differences (asymmetric + dual clip, IS weights)', (mode) => {
    const shape = { batchSize: 6, seqLen: 9 };
    const n = 54;
    const oldLogProb = randomFloats(31, n, -3, -0.1);
    const offset = randomFloats(32, n, -1.5, 1.5);
    const logProb = oldLogProb.map((o, i) => o + (offset[i] as number));
    const advantages = randomFloats(33, n, -2, 2);
    const responseMask = randomMask(34, n);
    const rolloutIsWeights = randomFloats(35, n, 0.5, 1.5);
    const cfg = { shape, oldLogProb, advantages, responseMask, rolloutIsWeights, lossAggMode: mode, clipRatioLow: 0.2, clipRatioHigh: 0.28, clipRatioC: 2.5 };
    const r = computePolicyLossVanilla({ ...cfg, logProb });
    expect(r.pgClipfrac).toBeGreaterThan(0);
    expect(r.pgClipfracLower).toBeGreaterThan(0);
    expectGradientMatches((x) => computePolicyLossVanilla({ ...cfg, logProb: x }).pgLoss, logProb, r.dLogProb);
  });

  it('rejects clip_ratio_c <= 1 and mis-shaped inputs', () => {
    expectInvalid(() => computePolicyLossVanilla({ ...fixture, clipRatioC: 1 }), 'clipRatioC');
    expectInvalid(() => computePolicyLossVanilla({ ...fixture, advantages: f64([1]) }), 'advantages');
  });
});
