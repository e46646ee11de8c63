import { describe, expect, it } from 'vitest';
import { l2Normalize, meanPool, takeRow } from './pooling.ts';

// Two rows, three positions, dim 2:
//   row 0: [1,2] [3,4] [100,100]   mask 1 1 0  (last position is padding)
//   row 1: [2,0] [0,2] [4,4]       mask 1 1 1
const states = {
  data: Float32Array.from([1, 2, 3, 4, 100, 100, 2, 0, 0, 2, 4, 4]),
  batch: 2,
  seqLen: 3,
  dim: 2,
};

describe('meanPool', () => {
  it('averages only the unmasked positions', () => {
    expect(Array.from(meanPool(states, [1, 1, 0, 1, 1, 1], 0))).toEqual([2, 3]);
    expect(Array.from(meanPool(states, [1, 1, 0, 1, 1, 1], 1))).toEqual([2, 2]);
  });

  it('accepts an int64 mask as ONNX feeds carry it', () => {
    const mask = BigInt64Array.from([1n, 0n, 0n, 1n, 1n, 0n]);
    expect(Array.from(meanPool(states, mask, 0))).toEqual([1, 2]);
    expect(Array.from(meanPool(states, mask, 1))).toEqual([1, 1]);
  });

  it('gives the zero vector for a row with no unmasked position', () => {
    expect(Array.from(meanPool(states, [0, 0, 0, 1, 1, 1], 0))).toEqual([0, 0]);
  });
});

describe('l2Normalize', () => {
  it('scales to unit length in place', () => {
    const v = Float32Array.from([3, 4]);
    expect(l2Normalize(v)).toBe(v);
    expect(Array.from(v)).toEqual([Math.fround(0.6), Math.fround(0.8)]);
  });

  it('turns a zero (or vanishing) vector into zeros, not NaN', () => {
    expect(Array.from(l2Normalize(new Float32Array(3)))).toEqual([0, 0, 0]);
    expect(Array.from(l2Normalize(Float32Array.from([1e-30, 0])))).toEqual([0, 0]);
  });

  it('normalises a pooled vector: mean [2,2] → [1/√2, 1/√2]', () => {
    const v = l2Normalize(meanPool(states, [1, 1, 0, 1, 1, 1], 1));
    expect(v[0]).toBeCloseTo(Math.SQRT1_2, 7);
    expect(v[1]).toBeCloseTo(Math.SQRT1_2, 7);
  });
});

describe('takeRow', () => {
  it('copies one row of a [batch, dim] output', () => {
    const data = Float32Array.from([1, 2, 3, 4, 5, 6]);
    const row = takeRow(data, 3, 1);
    expect(Array.from(row)).toEqual([4, 5, 6]);
    row[0] = 0;
    expect(data[3]).toBe(4);
  });
});
