import { describe, expect, it } from 'vitest';
import { ErrorCode } from '@rl/service-kit/core';
import { geo3kFormatOk, geo3kScorer } from './geo3k.ts';

function run(solution: string, groundTruth: unknown, params: unknown = {}) {
  return geo3kScorer.score({ solution, groundTruth, params: geo3kScorer.params.parse(params), extraInfo: undefined });
}

// Expected: verl geo3k.compute_score(predict, ground_truth, use_boxed, format_score),
// acc_reward == 1.0, format_reward == 1.0, and the string graded.
const CASES: ReadonlyArray<readonly [string, string, boolean, number, number, boolean, boolean, string]> = [
  ['<think>reasoning</think> The answer is \\boxed{12}.', '12', true, 0.1, 1.0, true, true, '12'],
  ['<think>reasoning</think> The answer is \\boxed{12}.', '13', true, 0.1, 0.1, false, true, '12'],
  ['The answer is \\boxed{12}.', '12', true, 0.1, 0.9, true, false, '12'],
  ['<think>\nmulti\nline\n</think>\n\\boxed{\\frac{1}{2}}\n', '0.5', true, 0.1, 1.0, true, true, '\\frac{1}{2}'],
  ['<think>x</think>\\boxed{3.0}', '3', true, 0.1, 1.0, true, true, '3.0'],
  ['<think>x</think>\\boxed{3.0}', '3', true, 0.5, 1.0, true, true, '3.0'],
  ['<think>x</think>\\boxed{3.0}', '3', true, 0.0, 1.0, true, true, '3.0'],
  ['<think>x</think>\\boxed{3.0}', '3', true, 0.3, 1.0, true, true, '3.0'],
  ['<think>x</think>\\boxed{3}', '3', true, 0.7, 1.0, true, true, '3'],
  [' <think>x</think>\\boxed{3}', '3', true, 0.1, 0.9, true, false, '3'],
  ['<think>x</think>no box', '3', true, 0.1, 0.0, false, false, 'None'],
  ['<think>x</think>\\boxed{}', '3', true, 0.1, 0.1, false, true, ''],
  ['<think>x</think>\\boxed{3', '3', true, 0.1, 0.0, false, false, 'None'],
  ['<think>x</think>\\boxed{{3}}', '3', true, 0.1, 1.0, true, true, '{3}'],
  ['<think>x\\boxed{3}</think>', '3', true, 0.1, 0.9, true, false, '3'],
  ['<think>x</think>\\boxed{2\\sqrt{3}}', '\\sqrt{12}', true, 0.1, 1.0, true, true, '2\\sqrt{3}'],
  ['<think>x</think>\\boxed{60^\\circ}', '60', true, 0.1, 1.0, true, true, '60^\\circ'],
  ['<think>x</think>\\boxed{(1,2)}', '(1, 2)', true, 0.1, 1.0, true, true, '(1,2)'],
  ['3', '3', false, 0.1, 0.9, true, false, '3'],
  ['<think>x</think>3', '3', false, 0.1, 0.0, false, false, '<think>x</think>3'],
  ['<think>x</think>\\boxed{3}', '3', false, 0.1, 0.1, false, true, '<think>x</think>\\boxed{3}'],
  ['<THINK>x</THINK>\\boxed{3}', '3', true, 0.1, 0.9, true, false, '3'],
  ['<think></think>\\boxed{}', '', true, 0.1, 1.0, true, true, ''],
  ['<think>x</think>\\boxed{\\frac{\\sqrt{3}}{2}}', 'sqrt(3)/2', true, 0.1, 1.0, true, true, '\\frac{\\sqrt{3}}{2}'],
];

describe('geo3k scorer', () => {
  it.each(CASES)('%j vs %j (use_boxed=%j, format_score=%j) -> %j', (solution, truth, useBoxed, formatScore, score, acc, format, pred) => {
    const out = run(solution, truth, { use_boxed: useBoxed, format_score: formatScore });
    expect(out.score).toBe(score);
    expect(out.extra).toEqual({ acc, format, pred });
  });

  it('defaults to use_boxed=true, format_score=0.1', () => {
    expect(geo3kScorer.params.parse({})).toEqual({ use_boxed: true, format_score: 0.1 });
    expect(run('<think>a</think>\\boxed{2}', '3').score).toBe(0.1);
  });

  it('rejects unknown or mistyped params', () => {
    expect(geo3kScorer.params.safeParse({ use_boxed: 'yes' }).success).toBe(false);
    expect(geo3kScorer.params.safeParse({ format_score: '0.1' }).success).toBe(false);
    expect(geo3kScorer.params.safeParse({ extra: 1 }).success).toBe(false);
  });

  it('treats a null ground truth as never matching and refuses other non-strings', () => {
    expect(run('<think>a</think>\\boxed{None}', null).score).toBeCloseTo(0.1, 15);
    expect(() => run('\\boxed{3}', 3)).toThrow(expect.objectContaining({ code: ErrorCode.InvalidGroundTruth, status: 400 }));
    expect(() => run('\\boxed{3}', ['3'])).toThrow(expect.objectContaining({ code: ErrorCode.InvalidGroundTruth }));
  });
});

describe('geo3kFormatOk (verl geo3k.format_reward)', () => {
  it.each([
    ['<think>a</think>\\boxed{1}', true],
    ['<think>\na\n</think>\n\\boxed{1}\n', true],
    ['<think></think>\\boxed{}', true],
    ['<think>a</think>b\\boxed{1} trailing } text', true],
    ['<think>a</think>\\boxed{1', false],
    ['<think>a\\boxed{1}</think>', false],
    [' <think>a</think>\\boxed{1}', false],
    ['<think>a</think \\boxed{1}', false],
    ['a</think>\\boxed{1}', false],
    ['<think>a</think>\\boxed 1}', false],
    ['<think>a</think>\\boxed{x</think>\\boxed{y}', true],
  ] as const)('%j -> %j', (text, expected) => {
    expect(geo3kFormatOk(text)).toBe(expected);
  });

  it('stays linear on long adversarial inputs', () => {
    const text = `<think>${'</think>'.repeat(20000)}${'\\boxed{'.repeat(20000)}`;
    expect(geo3kFormatOk(text)).toBe(false);
  });
});
