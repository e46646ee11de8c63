import { describe, expect, it } from 'vitest';
import { stripString } from './math-reward-strip.ts';

// Expected values come from running verl's math_reward.strip_string; null where it raises (verl b178a3c) on the same inputs.
const CASES: Array<{ name: string; input: string; expected: string | null }> = [
  { name: 'plain number', input: '42', expected: '42' },
  { name: 'empty string', input: '', expected: '' },
  { name: 'newlines', input: 'a\nb', expected: 'ab' },
  { name: 'inverse space', input: '1\\!000', expected: '1000' },
  { name: 'double backslash', input: '\\\\frac12', expected: '\\frac{1}{2}' },
  { name: 'three backslashes then %', input: '5\\\\\\%', expected: '5' },
  { name: 'tfrac/dfrac', input: '\\tfrac12+\\dfrac34', expected: '\\frac{1}{2}+\\frac{3}{4}' },
  { name: 'left/right', input: '\\left[1,2\\right)', expected: '[1,2)' },
  { name: 'degrees', input: '30^\\circ+60^{\\circ}', expected: '30+60' },
  { name: 'dollar', input: '\\$3', expected: '3' },
  { name: 'units', input: '3 \\text{ feet}', expected: '3' },
  { name: 'two units raise (verl raises AssertionError)', input: 'a\\text{ b}\\text{ c}', expected: null },
  { name: 'percent', input: '5\\%', expected: '5' },
  { name: 'space dot', input: 'x .5', expected: 'x0.5' },
  { name: 'brace dot', input: '\\frac{.5}{2}', expected: '\\frac{0.5}{2}' },
  { name: 'leading dot', input: '.25', expected: '0.25' },
  { name: 'lone dot', input: '.', expected: '0.' },
  { name: 'x = prefix', input: 'x = 3', expected: '3' },
  { name: 'long prefix kept', input: 'xyz = 3', expected: 'xyz=3' },
  { name: 'two astral before =', input: '😀😀=7', expected: '7' },
  { name: 'three astral before =', input: '😀😀😀=7', expected: '😀😀😀=7' },
  { name: 'sqrt shorthand', input: '\\sqrt3x', expected: '\\sqrt{3}x' },
  { name: 'sqrt braced', input: '\\sqrt{3}', expected: '\\sqrt{3}' },
  { name: 'sqrt astral', input: '\\sqrt😀x', expected: '\\sqrt{😀}x' },
  { name: 'trailing sqrt raises (verl raises IndexError)', input: '2\\sqrt', expected: null },
  { name: 'frac shorthand', input: '\\frac12', expected: '\\frac{1}{2}' },
  { name: 'frac one braced', input: '\\frac1{72}', expected: '\\frac{1}{72}' },
  { name: 'frac letter then brace', input: '\\fraca{b}', expected: '\\frac{a}{b}' },
  { name: 'frac single char keeps input', input: 'x + \\frac1', expected: 'x+\\frac1' },
  { name: 'frac astral pair', input: '\\frac😀😁', expected: '\\frac{😀}{😁}' },
  { name: 'trailing frac raises (verl raises IndexError)', input: '1\\frac', expected: null },
  { name: 'doubled frac raises (verl raises IndexError)', input: '\\frac\\frac12', expected: null },
  { name: '0.5', input: '0.5', expected: '\\frac{1}{2}' },
  { name: 'spaces removed', input: ' 1 2 ', expected: '12' },
  { name: 'a/b', input: '3/4', expected: '\\frac{3}{4}' },
  { name: 'negative a/b', input: '-3/4', expected: '\\frac{-3}{4}' },
  { name: 'a/-b', input: '3/-4', expected: '\\frac{3}{-4}' },
  { name: 'leading zero a/b', input: '03/4', expected: '03/4' },
  { name: 'plus sign a/b', input: '+3/4', expected: '+3/4' },
  { name: '-0/b', input: '-0/4', expected: '-0/4' },
  { name: 'Unicode digits a/b', input: '٣/4', expected: '٣/4' },
  { name: 'a/b/c', input: '1/2/3', expected: '1/2/3' },
  { name: 'tab kept', input: '1\t2', expected: '1\t2' },
];

describe('stripString (verl math_reward.strip_string)', () => {
  it.each(CASES)('$name', ({ input, expected }) => {
    expect(stripString(input)).toBe(expected);
  });
});
