import { describe, expect, it } from 'vitest';
import { extractBoxedContent, gradeAnswer, isFrac, splitTuple } from './grader.ts';

// Expected: mathruler.grader.grade_answer(given, ground_truth).
const GRADE_CASES: ReadonlyArray<readonly [string, string, boolean]> = [
  ['12', '12', true],
  ['3.0', '3', true],
  ['3', '3.0', true],
  ['3.5', '3', false],
  ['0.5', '\\frac{1}{2}', true],
  ['\\frac{1}{2}', '0.5', true],
  ['0.50', '\\frac12', true],
  ['\\frac{2}{4}', '\\frac{1}{2}', false],
  ['2/4', '1/2', false],
  ['0.333', '\\frac{1}{3}', false],
  ['0.3333333333333333', '\\frac{1}{3}', false],
  ['1.5', '\\frac{3}{2}', true],
  ['7.5', '\\frac{15}{2}', true],
  ['0.2', '\\frac{1}{5}', true],
  ['\\frac{\\sqrt{3}}{2}', 'sqrt(3)/2', true],
  ['\\frac{\\sqrt3}{2}', '\\frac{1}{2}\\sqrt{3}', true],
  ['\\sqrt{12}', '2\\sqrt{3}', true],
  ['2\\sqrt{3}', '3.46', false],
  ['\\frac{1}{\\sqrt{2}}', '\\frac{\\sqrt{2}}{2}', true],
  ['1.5\\sqrt{3}', '\\frac{3\\sqrt{3}}{2}', true],
  ['\\sqrt{2+\\sqrt{3}}', '\\frac{\\sqrt{6}+\\sqrt{2}}{2}', false],
  ['\\pi', 'pi', true],
  ['4\\pi', '4pi', true],
  ['\\frac{8\\pi}{2}', '4\\pi', true],
  ['0.5\\pi', '\\frac{\\pi}{2}', true],
  ['3.14', '\\pi', false],
  ['3.141592653589793', '\\pi', false],
  ['36\\pi', '36\\pi \\text{ cm}^3', true],
  ['60^\\circ', '60', true],
  ['60^{\\circ}', '60', true],
  ['60 degrees', '60', true],
  ['60°', '60', false],
  ['\\frac{\\pi}{3}', '60', false],
  ['45^\\circ', '45', true],
  ['(1,2)', '(1, 2)', true],
  ['(2,1)', '(1,2)', false],
  ['[1,2]', '(1,2)', false],
  ['(1,2,3)', '(1,2)', false],
  ['(\\frac{1}{2}, 1)', '(0.5,1)', true],
  ['[0, 1)', '[0,1)', true],
  ['(-\\infty, 3]', '(-\\infty,3]', true],
  ['2, 3', '2 and 3', true],
  ['3, 2', '2 and 3', false],
  ['1,000', '1000', true],
  ['1,000,000', '1000000', true],
  ['1,0000', '10000', false],
  ['12,345', '12345', true],
  ['1,000.5', '1000.5', true],
  ['1 million', '1000000', false],
  ['24 \\text{ cm}^2', '24', true],
  ['\\text{24}', '24', true],
  ['24\\text{ square units}', '24', true],
  ['5\\sqrt{2}\\,\\text{cm}', '5\\sqrt{2}', true],
  ['10\\%', '10', true],
  ['\\$5', '5', true],
  ['', '5', false],
  ['None', '5', false],
  ['None', 'none', true],
  ['7\\frac{3}{4}', '7.75', true],
  ['7 3/4', '\\frac{31}{4}', true],
  ['x=2', '2', true],
  ['k = 5', '5', true],
  ['(x-1)(x+1)', 'x^2-1', true],
  ['2x', 'x*2', true],
  ['\\sqrt{x^2}', 'x', false],
  ['xy', 'yx', true],
  ['abc', 'cba', false],
  ['x^{2}', 'x^2', true],
  ['2^{10}', '1024', false],
  ['2^10', '1024', false],
  ['5!', '120', false],
  ['\\frac{6}{2}', '3', false],
  ['A', '\\text{A}', true],
  ['(A)', 'A', true],
  ['yes', 'Yes', true],
  ['\\infty', 'inf', true],
  ['-5', '- 5', true],
  ['2.9999999', '3', true],
  ['3.1', '3', false],
  ['2.4\\sqrt{2}', '\\frac{12\\sqrt{2}}{5}', true],
  ['3.5\\sqrt{3}', '\\frac{7\\sqrt{3}}{2}', true],
  ['1.2\\pi', '\\frac{6\\pi}{5}', true],
  ['\\frac{\\pi}{0.3}', '\\frac{10\\pi}{3}', true],
  ['1.41421356237310', '\\sqrt{2}', false],
  ['2.449489742783178', '\\sqrt{6}', false],
  ['\\sqrt{2.0}', '\\sqrt{2}', false],
  ['\\sqrt{0.5}', '\\frac{\\sqrt{2}}{2}', false],
  ['0.1+0.2', '0.3', false],
  ['12.12', '7\\sqrt{3}', false],
  ['\\ln 4', '2\\ln 2', true],
  ['\\frac{\\sqrt{3}}{3}', '\\frac{1}{\\sqrt{3}}', true],
];

// Where the numeric check differs from sympy: [given, truth, ours, mathruler's].
// sympy rounds float coefficients of symbolic terms and never equates x**0.5 with sqrt(x).
const KNOWN_DEVIATIONS: ReadonlyArray<readonly [string, string, boolean, boolean]> = [
  ['0.1\\pi+0.2\\pi', '0.3\\pi', true, false],
  ['x^0.5', '\\sqrt{x}', true, false],
  ['0.1x+0.2x', '0.3x', true, false],
];

// Expected: mathruler.grader.extract_boxed_content(text).
const BOX_CASES: ReadonlyArray<readonly [string, string]> = [
  ['The answer is \\boxed{12}.', '12'],
  ['\\boxed{}', ''],
  ['\\boxed{ 3 }', '3'],
  ['no box here', 'None'],
  ['\\boxed{\\frac{1}{2}}', '\\frac{1}{2}'],
  ['\\boxed{1} then \\boxed{2}', '2'],
  ['\\boxed{\\frac{\\sqrt{3}}{2}', 'None'],
  ['\\boxed{a}}', 'a'],
  ['\\boxed{{a}b}', '{a}b'],
  ['\\boxed {12}', 'None'],
  ['\\boxed{x}\n', 'x'],
  ['$\\boxed{\\text{cm}}$', '\\text{cm}'],
  ['\\boxed{\\boxed{7}}', '7'],
  ['\\boxed{\n5\n}', '5'],
];

describe('gradeAnswer (mathruler grade_answer)', () => {
  it.each(GRADE_CASES)('%j vs truth %j -> %j', (given, truth, expected) => {
    expect(gradeAnswer(given, truth)).toBe(expected);
  });

  it.each(KNOWN_DEVIATIONS)('%j vs truth %j -> %j (mathruler: %j)', (given, truth, ours) => {
    expect(gradeAnswer(given, truth)).toBe(ours);
  });

  it('is false for a None ground truth', () => {
    expect(gradeAnswer('5', null)).toBe(false);
    expect(gradeAnswer('None', null)).toBe(false);
  });
});

describe('extractBoxedContent (mathruler extract_boxed_content)', () => {
  it.each(BOX_CASES)('%j -> %j', (text, expected) => {
    expect(extractBoxedContent(text)).toBe(expected);
  });
});

describe('grader helpers', () => {
  it.each([
    ['1/2', true],
    ['-10/04', true],
    ['1.5/2', false],
    ['1/0', false],
    ['12/3x', true],
    ['a/b', false],
  ] as const)('_is_frac(%j) = %j', (expr, expected) => {
    expect(isFrac(expr)).toBe(expected);
  });

  it.each([
    ['(1,2)', ['1', '2']],
    ['[1, 2)', ['1', '2']],
    ['(1,000,2)', ['1000', '2']],
    ['((1,2),3)', ['((1,2),3)']],
    ['()', ['()']],
    ['', []],
    ['5', ['5']],
  ] as const)('split_tuple(%j) = %j', (expr, expected) => {
    expect(splitTuple(expr)).toEqual(expected);
  });
});
