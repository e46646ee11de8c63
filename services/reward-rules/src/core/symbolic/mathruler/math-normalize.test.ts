import { describe, expect, it } from 'vitest';
import { normalizeAnswer } from './math-normalize.ts';

// Expected values: mathruler.math_normalize.normalize_answer(input).
const CASES: ReadonlyArray<readonly [string, string]> = [
  ['  \\text{ 5 } ', '5'],
  ['\\left(1,2\\right)', '(1,2)'],
  ['\\dfrac12', '\\frac{1}{2}'],
  ['\\tfrac{1}{2}', '\\frac{1}{2}'],
  ['0.5', '\\frac{1}{2}'],
  ['1/2', '\\frac{1}{2}'],
  ['01/2', '01/2'],
  ['3/4/5', '3/4/5'],
  ['\\sqrt2', '\\sqrt{2}'],
  ['\\sqrt', '\\sqrt'],
  ['\\frac', '\\frac'],
  ['\\frac1', '\\frac1'],
  ['\\frac{1}2', '\\frac{1}2'],
  ['\\frac12', '\\frac{1}{2}'],
  ['x = 5', '5'],
  ['abc = 5', 'abc=5'],
  ['5\\text{ cm}', '5'],
  ['5\\text{ cm}\\text{ m}', '5\\text{ cm}\\text{ m}'],
  ['50\\%', '50'],
  ['50%', '50'],
  ['.5', '\\frac{1}{2}'],
  [' .5', '\\frac{1}{2}'],
  ['{.5}', '{0.5}'],
  ['\\$5', '5'],
  ['60^\\circ', '60'],
  ['60^{\\circ}', '60'],
  ['a\\!b', 'ab'],
  ['a\\\\b', 'a\\b'],
  ['a\nb', 'ab'],
  ['', ''],
];

describe('normalizeAnswer (mathruler math_normalize)', () => {
  it.each(CASES)('%j -> %j', (input, expected) => {
    expect(normalizeAnswer(input)).toBe(expected);
  });

  it('passes None through', () => {
    expect(normalizeAnswer(null)).toBeNull();
  });
});
