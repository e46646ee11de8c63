import { describe, expect, it } from 'vitest';
import { expectInvalid } from '../algos.test-support.ts';
import { torchTopkIndices } from './torch-topk.ts';

// Index sets printed by testdata/torch-topk-reference.py (torch 1.13 CPU).
describe('torchTopkIndices (torch.topk largest=True on the CPU, verl kl_cov)', () => {
  it('std::nth_element path (k * 64 > n): ties are not broken by index', () => {
    expect(torchTopkIndices([5, 5, 7], 2)).toEqual([0, 2]);
    expect(torchTopkIndices([1, 3, 3, 2, 3, 0, 3, 1], 3)).toEqual([1, 4, 6]);
  });

  it('std::partial_sort path (k * 64 <= n): heap selection keeps later equal values', () => {
    expect(
      torchTopkIndices(
        Array.from({ length: 130 }, (_, i) => (i * 7) % 3),
        2,
      ),
    ).toEqual([2, 5]);
    expect(
      torchTopkIndices(
        Array.from({ length: 200 }, (_, i) => (i * 5) % 4),
        3,
      ),
    ).toEqual([3, 7, 11]);
  });

  it('NaN ranks above every number (torch sorts NaN to the top for largest=True)', () => {
    expect(torchTopkIndices([1, Number.NaN, 2], 1)).toEqual([1]);
  });

  it('k = 0 selects nothing; k > n raises like torch', () => {
    expect(torchTopkIndices([1, 2], 0)).toEqual([]);
    expectInvalid(() => torchTopkIndices([1, 2], 3), 'k');
  });
});
