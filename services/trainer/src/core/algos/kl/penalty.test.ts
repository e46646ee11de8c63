import { describe, expect, it } from 'vitest';
import { expectAllClose, expectInvalid } from '../testing/assertions.ts';
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
    expectAllClose(klPenalty(LP, REF, kind), expected, 2e-5);
  });

  it('"+" keeps the value of the base estimator (the reward is not differentiated)', () => {
    expectAllClose(klPenalty(LP, REF, 'k3+'), klPenalty(LP, REF, 'k3'), 0);
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
