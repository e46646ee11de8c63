import { describe, expect, it } from 'vitest';
import { expectAllClose, expectInvalid } from './testing/assertions.ts';
import { maskedMean, maskedMeanRows, maskedSum, maskedVar, maskedWhiten } from './masked.ts';

const f64 = (xs: number[]) => Float64Array.from(xs);

// Shared 3x4 fixture; expected numbers from testdata/verl-reference.py (masked_var_r, masked_whiten_r*).
const R = f64([0, 0, 1, 0, 0.2, 0, 0.5, 0, 0, 1, 0, 0]);
const M = f64([1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0]);

describe('maskedMean (verl tests/utils/test_torch_functional.py::test_masked_mean)', () => {
  it.each([
    { value: [1, 2, 3, 4], mask: [1, 0, 0, 1], gt: 2.5 },
    { value: [1, 2, NaN, 4], mask: [1, 0, 0, 1], gt: 2.5 },
    { value: [1, 2, NaN, 4], mask: [1, 0, 1, 0], gt: NaN },
  ])('$value with mask $mask -> $gt', ({ value, mask, gt }) => {
    const res = maskedMean(f64(value), f64(mask));
    if (Number.isNaN(gt)) expect(res).toBeNaN();
    else expect(res).toBeCloseTo(gt, 6);
  });

  it('divides by mask.sum() + 1e-8, so an empty mask gives 0 rather than NaN', () => {
    expect(maskedMean(f64([3, 4]), f64([0, 0]))).toBe(0);
    expect(maskedSum(f64([3, 4]), f64([0, 0]))).toBe(0);
  });

  it('weights by fractional masks as verl does', () => {
    // (1*0.5 + 3*1) / 1.5
    expect(maskedMean(f64([1, 3]), f64([0.5, 1]))).toBeCloseTo(3.5 / 1.5, 7);
  });

  it('averages per row for axis=-1', () => {
    expectAllClose(maskedMeanRows(R, M, { batchSize: 3, seqLen: 4 }), [1 / 3, 0.7 / 4, 0.5], 1e-7);
  });
});

describe('maskedVar', () => {
  it('is unbiased over the masked elements: 9 values, mean 0.3', () => {
    // hand: sum of squared deviations = 1.48, / 9 * 9/8 = 0.185 (numpy reference agrees)
    expect(maskedVar(R, M)).toBeCloseTo(0.185, 7);
    expect(maskedVar(R, M, false)).toBeCloseTo(1.48 / 9, 7);
  });

  it('rejects a mask summing to 0 or 1, like verl', () => {
    expectInvalid(() => maskedVar(f64([1, 2]), f64([0, 0])), 'responseMask');
    expectInvalid(() => maskedVar(f64([1, 2]), f64([0, 1])), 'responseMask');
  });
});

describe('maskedWhiten', () => {
  it('matches the numpy re-statement of verl masked_whiten, masked slots included', () => {
    expectAllClose(
      maskedWhiten(R, M),
      [-0.6974858, -0.6974858, 1.6274668, -0.6974858, -0.23249528, -0.6974858, 0.4649905, -0.6974858, -0.6974858, 1.6274668, -0.6974858, -0.6974858],
      2e-6,
    );
  });

  it('adds the mean back with shift_mean=false', () => {
    expectAllClose(
      maskedWhiten(R, M, false),
      [-0.39748579, -0.39748579, 1.92746687, -0.39748579, 0.06750473, -0.39748579, 0.76499051, -0.39748579, -0.39748579, 1.92746687, -0.39748579, -0.39748579],
      2e-6,
    );
  });

  it('gives zero masked mean and unit unbiased variance', () => {
    const w = maskedWhiten(R, M);
    expect(maskedMean(w, M)).toBeCloseTo(0, 6);
    expect(maskedVar(w, M)).toBeCloseTo(1, 5);
  });
});
