import { describe, expect, it } from 'vitest';
import { normalizeExpr, strIsInt, stripProperlyFormattedCommas } from './normalize.ts';
import { pyFloat, pyRound } from '../cpython/py-float.ts';

// Expected values: mathruler.grader._normalize(input).
const CASES: ReadonlyArray<readonly [string, string]> = [
  ['\\text{5}', '5'],
  ['\\text{abc} cm', 'abc'],
  ['5\\%', '5'],
  ['\\$5', '5'],
  ['$5$', '5'],
  ['3 or 4', '3,4'],
  ['1 and 2', '1,2'],
  ['2 million', '2*10^6'],
  ['5 cm', '5'],
  ['5 centimeters', '5'],
  ['12 inches^2', '12'],
  ['3 meters ^2', '3'],
  ['60^\\circ', '60'],
  ['60 ^ \\circ', '60'],
  ['{5}', '5'],
  ['1,\\!000', '1000'],
  ['3.0', '3'],
  ['3.0000001', '3'],
  ['2.9999999', '3'],
  ['-0.0', '0'],
  ['1e3', '1000'],
  ['inf', 'inf'],
  ['nan', 'nan'],
  ['\\frac{1}{2}', '1/2'],
  ['\\dfrac{3}{4}', '3/4'],
  ['7\\frac{3}{4}', '7+3/4'],
  ['\\sqrt{3}', 'sqrt(3)'],
  ['2\\pi r', '2pir'],
  ['3\\times 4', '3*4'],
  ['2\\cdot 3', '2*3'],
  ['(-\\infty, 3] \\cup [4, \\infty)', '(-inf,3]u[4,inf)'],
  ['\\sqrt', '\\sqrt'],
  ['\\frac{1}', '%s/%s1'],
  ['- 5', '-5'],
  ['7 3/4', '7+3/4'],
  ['A B', 'ab'],
  ['ABC', 'abc'],
  ['\\left( 1, 2 \\right)', '(1,2)'],
  ['1,000', '1000'],
  ['1,000,000.5', '1,000,000.5'],
  ['\\text{ cm}', ''],
  ['\\mathrm{m}^2', 'm^2'],
  ['\\Sigma', 'σ'],
  ['ΣΑ', 'σα'],
  ['\\begin{pmatrix}1&2\\end{pmatrix}', '[1+2]'],
  ['10^{3}', '10^3'],
  ['', ''],
  ['\\\\', ''],
  ['x\\!y', 'xy'],
];

describe('normalizeExpr (mathruler grader._normalize)', () => {
  it.each(CASES)('%j -> %j', (input, expected) => {
    expect(normalizeExpr(input)).toBe(expected);
  });

  it('passes None through', () => {
    expect(normalizeExpr(null)).toBeNull();
  });

  it('lowercases with Python’s Final_Sigma rule', () => {
    // Python 3.11: 'AΣ'.lower() == 'aς', 'AΣB'.lower() == 'aσb'.
    expect(normalizeExpr('AΣ')).toBe('aς');
    expect(normalizeExpr('AΣB')).toBe('aσb');
  });
});

describe('number helpers', () => {
  it.each([
    ['1,000', '1000'],
    ['1,000,000', '1000000'],
    ['(1,000, 2)', '(1000, 2)'],
    ['1,0000', '1,0000'],
    ['1,23', '1,23'],
  ])('_strip_properly_formatted_commas(%j) = %j', (input, expected) => {
    expect(stripProperlyFormattedCommas(input)).toBe(expected);
  });

  it.each([
    ['3', true],
    ['3.00000001', true],
    ['3.001', false],
    ['1,000', true],
    ['1,0', false],
    ['inf', false],
    ['nan', false],
    ['', false],
  ] as const)('_str_is_int(%j) = %j', (input, expected) => {
    expect(strIsInt(input)).toBe(expected);
  });

  it('parses like Python float()', () => {
    expect(pyFloat(' 1_000.5 ')).toBe(1000.5);
    expect(pyFloat('.5e1')).toBe(5);
    expect(pyFloat('-Infinity')).toBe(-Infinity);
    expect(pyFloat('1__0')).toBeNull();
    expect(pyFloat('0x10')).toBeNull();
    expect(pyFloat('1,0')).toBeNull();
  });

  it('rounds half to even like Python round()', () => {
    expect([0.5, 1.5, 2.5, -0.5, -1.5].map(pyRound)).toEqual([0, 2, 2, 0, -2]);
    expect(pyRound(Infinity)).toBeNull();
  });
});
