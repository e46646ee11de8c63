import { describe, expect, it } from 'vitest';
import { codePointWidthAt, pyLen, pySliceFrom, pyTail } from './code-points.ts';

// Expected values are CPython 3.11's for the same str.
describe('pyLen (Python len)', () => {
  it.each([
    ['abc', 3],
    ['😀', 1],
    ['a😀b', 3],
    ['\ud800', 1],
    ['\ud800\ud800', 2],
    ['\udc00\ud800', 2],
    ['', 0],
  ])('len(%j) == %i', (s, n) => {
    expect(pyLen(s)).toBe(n);
  });
});

describe('pyTail (Python s[-n:])', () => {
  it.each([
    ['a😀b😀', 2, 'b😀'],
    ['😀😀😀', 5, '😀😀😀'],
    ['abc', 1, 'c'],
    ['😀a', 1, 'a'],
    ['a😀', 1, '😀'],
    ['x'.repeat(10) + '😀'.repeat(300), 300, '😀'.repeat(300)],
  ])('%j[-%i:]', (s, n, expected) => {
    expect(pyTail(s, n)).toBe(expected);
  });
});

describe('pySliceFrom (Python s[start:])', () => {
  it.each([
    [1, '😀b'],
    [2, 'b'],
    [3, ''],
    [10, ''],
    [-1, 'b'],
    [-2, '😀b'],
    [-10, 'a😀b'],
    [0, 'a😀b'],
  ])("'a😀b'[%i:]", (start, expected) => {
    expect(pySliceFrom('a😀b', start)).toBe(expected);
  });
});

describe('codePointWidthAt', () => {
  it('is 2 only on a well-formed surrogate pair', () => {
    expect(codePointWidthAt('😀', 0)).toBe(2);
    expect(codePointWidthAt('a', 0)).toBe(1);
    expect(codePointWidthAt('\ud800a', 0)).toBe(1);
    expect(codePointWidthAt('\udc00\ud800', 0)).toBe(1);
  });
});
