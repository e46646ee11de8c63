import { describe, expect, it } from 'vitest';
import { expectAllClose, expectGradientMatches, expectInvalid, randomFloats } from '../algos.test-support.ts';
import { KlPenaltyKind, klPenalty } from './penalty.ts';

const f64 = (xs: number[]) => Float64Array.from(xs);
// Expected values: numpy kl_* lines of testdata/verl-reference.py.
const LP = f64([-1.0, -0.5, -2.0, -0.1, -30.0, -0.3]);
const REF = f64([-1.2, -0.5, -1.0, -0.4, -1.0, -30.0]);

describe('klPenalty (verl kl_penalty)', () => {
  it.each([
    ['kl', [0.2, 0, -1, 0.3, -29, 29.7]],
    ['k1', [0.2, 0, -1, 0.3, -29, 29.7]],
    ['abs', [0.2, 0, 1, 0.3, 29, 29.7]],
    ['mse', [0.02, 0, 0.5, 0.045, 420.5, 441.045]],
    ['k2', [0.02, 0, 0.5, 0.045, 420.5, 441.045]],
    // k3: exp(-0.2) + 0.2 - 1 = 0.01873075, e - 2 = 0.71828183; both extremes clamp to 10.
    ['low_var_kl', [0.01873076, 0, 0.71828198, 0.04081821, 10, 10]],
    ['k3', [0.01873076, 0, 0.71828198, 0.04081821, 10, 10]],
  ] as const)('%s', (kind, expected) => {
    expectAllClose(klPenalty(LP, REF, kind).kl, expected, 2e-5);
  });

  it.each(['kl', 'abs', 'mse', 'low_var_kl'] as const)('%s: derivative matches finite differences, clamps included', (kind) => {
    const ref = randomFloats(11, 64, -3, 0);
    const logp = randomFloats(12, 64, -15, 2);
    const { dLogprob } = klPenalty(logp, ref, kind);
    for (let i = 0; i < logp.length; i++) {
      const one = (x: Float64Array) => klPenalty(x, ref.subarray(i, i + 1), kind).kl[0] as number;
      expectGradientMatches(one, logp.slice(i, i + 1), [dLogprob[i] as number], { h: 1e-5, absTol: 1e-5, relTol: 1e-5 });
    }
  });

  it('"+" keeps the value of the estimator and takes the gradient of k2 (straight-through)', () => {
    const plain = klPenalty(LP, REF, 'k3');
    const st = klPenalty(LP, REF, 'k3+');
    expectAllClose(st.kl, plain.kl, 0);
    expectAllClose(st.dLogprob, [0.2, 0, -1, 0.3, -29, 29.7], 1e-6);
  });

  it('has zero gradient where low_var_kl is clamped', () => {
    expectAllClose(klPenalty(f64([-30, -0.3]), f64([-1, -30]), 'low_var_kl').dLogprob, [0, 0]);
  });

  it('rejects "full" and unknown names', () => {
    expect(KlPenaltyKind.safeParse('full').success).toBe(true);
    expectInvalid(() => klPenalty(LP, REF, 'full'), 'klPenalty');
    expectInvalid(() => klPenalty(LP, REF, 'k4' as KlPenaltyKind), 'klPenalty');
    expect(KlPenaltyKind.safeParse('k4').success).toBe(false);
  });

  it('requires equal lengths', () => {
    expectInvalid(() => klPenalty(LP, REF.subarray(1), 'kl'), 'refLogProb');
  });
});
