import { describe, expect, it } from 'vitest';
import { itScoresLikeVerl, type RaisingCase, type ScorerCase } from './scorer-table.test-support.ts';
import { MathDapoParams, mathDapoScorer } from './math-dapo.ts';


// Expected values come from running verl's math_dapo.compute_score (verl b178a3c) on the same inputs.
const CASES: ScorerCase[] = [
  {
    name: 'Answer: line matches', solution: 'Reasoning...\nAnswer: 5', groundTruth: '5',
    score: 1, acc: true, pred: '5',
  },
  {
    name: 'wrong answer scores -1', solution: 'Answer: 6', groundTruth: '5',
    score: -1, acc: false, pred: '6',
  },
  {
    name: 'case-insensitive and spaces around ":"', solution: 'answer :  5', groundTruth: '5',
    score: 1, acc: true, pred: '5',
  },
  {
    name: 'upper case', solution: 'FINAL ANSWER:5', groundTruth: '5',
    score: 1, acc: true, pred: '5',
  },
  {
    name: 'long s folds to s under IGNORECASE', solution: 'ANſWER: 5', groundTruth: '5',
    score: 1, acc: true, pred: '5',
  },
  {
    name: 'ideographic space is \\s', solution: 'Answer\u3000:\u30005', groundTruth: '5',
    score: 1, acc: true, pred: '5',
  },
  {
    name: '\\x1c and \\x85 are Python \\s', solution: 'Answer\u001c:\u00855', groundTruth: '5',
    score: 1, acc: true, pred: '5',
  },
  {
    name: '\\ufeff is not Python \\s', solution: 'Answer\ufeff: 5', groundTruth: '5',
    score: -1, acc: false, pred: '[INVALID]',
  },
  {
    name: 'last Answer: wins', solution: 'Answer: 3\nAnswer: 5', groundTruth: '5',
    score: 1, acc: true, pred: '5',
  },
  {
    name: 'the answer runs to the end of its line only', solution: 'Answer: 5\nbecause', groundTruth: '5',
    score: 1, acc: true, pred: '5',
  },
  {
    name: '\\s* crosses a newline after the colon', solution: 'Answer:\n5', groundTruth: '5',
    score: 1, acc: true, pred: '5',
  },
  {
    name: '"Answer: Answer: 5" is one match', solution: 'Answer: Answer: 5', groundTruth: '5',
    score: -1, acc: false, pred: 'Answer:5',
  },
  {
    name: 'whitespace-only answer normalises to ""', solution: 'Answer:  ', groundTruth: '',
    score: 1, acc: true, pred: '',
  },
  {
    name: 'no Answer: gives [INVALID]', solution: 'The result is 5', groundTruth: '5',
    score: -1, acc: false, pred: '[INVALID]',
  },
  {
    name: '[INVALID] ground truth matches a missing answer', solution: 'no answer here', groundTruth: '[INVALID]',
    score: 1, acc: true, pred: '[INVALID]',
  },
  {
    name: 'text after "=" only', solution: 'Answer: x = 5', groundTruth: '5',
    score: 1, acc: true, pred: '5',
  },
  {
    name: 'units removed', solution: 'Answer: 5 dollars', groundTruth: '5',
    score: 1, acc: true, pred: '5',
  },
  {
    name: 'thousands separators dropped for digit strings', solution: 'Answer: 1,000', groundTruth: '1000',
    score: 1, acc: true, pred: '1000',
  },
  {
    name: 'commas kept for non-digits', solution: 'Answer: 1,000.5', groundTruth: '1000.5',
    score: -1, acc: false, pred: '1,000.5',
  },
  {
    name: 'superscript digits count as digits', solution: 'Answer: 1,²', groundTruth: '1²',
    score: 1, acc: true, pred: '1²',
  },
  {
    name: '$...$ math is unwrapped', solution: 'Answer: $\\frac{1}{2}$.', groundTruth: '\\frac{1}{2}',
    score: 1, acc: true, pred: '\\frac{1}{2}',
  },
  {
    name: '\\boxed{} in the answer line', solution: 'Answer: \\boxed{5}', groundTruth: '5',
    score: 1, acc: true, pred: '5',
  },
  {
    name: '\\frac12 shorthand', solution: 'Answer: \\frac12', groundTruth: '\\frac{1}{2}',
    score: 1, acc: true, pred: '\\frac{1}{2}',
  },
  {
    name: '\\sqrt3 shorthand', solution: 'Answer: \\sqrt3', groundTruth: '\\sqrt{3}',
    score: 1, acc: true, pred: '\\sqrt{3}',
  },
  {
    name: '\\text{} unwrapped', solution: 'Answer: \\text{Paris}', groundTruth: 'Paris',
    score: 1, acc: true, pred: 'Paris',
  },
  {
    name: 'ground truth is normalised too', solution: 'Answer: 5', groundTruth: '\\boxed{5}',
    score: 1, acc: true, pred: '5',
  },
  {
    name: 'clip: "Answer" kept at exactly 300 code points', solution: 'Answer: 5\n' + 'y'.repeat(290), groundTruth: '5',
    score: 1, acc: true, pred: '5',
  },
  {
    name: 'clip: "A" cut at 301 code points', solution: 'Answer: 5\n' + 'y'.repeat(291), groundTruth: '5',
    score: -1, acc: false, pred: '[INVALID]',
  },
  {
    name: 'clip: astral padding (kept)', solution: 'Answer: 5\n' + '😀'.repeat(290), groundTruth: '5',
    score: 1, acc: true, pred: '5',
  },
  {
    name: 'clip: astral padding (cut)', solution: 'Answer: 5\n' + '😀'.repeat(291), groundTruth: '5',
    score: -1, acc: false, pred: '[INVALID]',
  },
  {
    name: 'strict box: raw equality', solution: '\\boxed{5}', groundTruth: '5', params: { strict_box_verify: true },
    score: 1, acc: true, pred: '5',
  },
  {
    name: 'strict box: no normalisation', solution: '\\boxed{ 5 }', groundTruth: '5', params: { strict_box_verify: true },
    score: -1, acc: false, pred: ' 5 ',
  },
  {
    name: 'strict box: nested braces', solution: 'so \\boxed{\\frac{1}{2}}', groundTruth: '\\frac{1}{2}', params: { strict_box_verify: true },
    score: 1, acc: true, pred: '\\frac{1}{2}',
  },
  {
    name: 'strict box: last box wins', solution: '\\boxed{4} \\boxed{5}', groundTruth: '5', params: { strict_box_verify: true },
    score: 1, acc: true, pred: '5',
  },
  {
    name: 'strict box: unbalanced box is no box', solution: '\\boxed{5', groundTruth: '5', params: { strict_box_verify: true },
    score: -1, acc: false, pred: null,
  },
  {
    name: 'strict box: ignores Answer:', solution: 'Answer: 5', groundTruth: '5', params: { strict_box_verify: true },
    score: -1, acc: false, pred: null,
  },
  {
    name: 'strict box: box inside the last 100 code points', solution: '\\boxed{5}' + 'x'.repeat(91), groundTruth: '5', params: { strict_box_verify: true },
    score: 1, acc: true, pred: '5',
  },
  {
    name: 'strict box: box outside the last 100 code points', solution: '\\boxed{5}' + 'x'.repeat(92), groundTruth: '5', params: { strict_box_verify: true },
    score: -1, acc: false, pred: null,
  },
  {
    name: 'strict box: astral padding inside 100', solution: '\\boxed{5}' + '😀'.repeat(91), groundTruth: '5', params: { strict_box_verify: true },
    score: 1, acc: true, pred: '5',
  },
  {
    name: 'strict box: astral padding outside 100', solution: '\\boxed{5}' + '😀'.repeat(92), groundTruth: '5', params: { strict_box_verify: true },
    score: -1, acc: false, pred: null,
  },
  {
    name: 'strict box: no box and null ground truth match (None == None)', solution: 'nothing', groundTruth: null, params: { strict_box_verify: true },
    score: 1, acc: true, pred: null,
  },
  {
    name: 'strict box: numeric ground truth never matches', solution: '\\boxed{5}', groundTruth: 5, params: { strict_box_verify: true },
    score: -1, acc: false, pred: '5',
  },
  {
    name: 'pause index: window starts at index - 100', solution: 'x'.repeat(50) + '\\boxed{5}' + 'x'.repeat(100), groundTruth: '5', params: { strict_box_verify: true, pause_tokens_index: [0, 0, 0, 150] },
    score: 1, acc: true, pred: '5',
  },
  {
    name: 'pause index: box before the window', solution: 'x'.repeat(50) + '\\boxed{5}' + 'x'.repeat(100), groundTruth: '5', params: { strict_box_verify: true, pause_tokens_index: [0, 0, 0, 151] },
    score: -1, acc: false, pred: null,
  },
  {
    name: 'pause index: negative start counts from the end', solution: '\\boxed{5}' + 'x'.repeat(40), groundTruth: '5', params: { strict_box_verify: true, pause_tokens_index: [0, 0, 0, 51] },
    score: 1, acc: true, pred: '5',
  },
  {
    name: 'pause index: negative start shorter than the box', solution: '\\boxed{5}' + 'x'.repeat(40), groundTruth: '5', params: { strict_box_verify: true, pause_tokens_index: [0, 0, 0, 52] },
    score: -1, acc: false, pred: null,
  },
  {
    name: 'pause index: beyond the end gives an empty window', solution: '\\boxed{5}', groundTruth: '5', params: { strict_box_verify: true, pause_tokens_index: [0, 0, 0, 1000] },
    score: -1, acc: false, pred: null,
  },
  {
    name: 'pause index: astral characters count once', solution: '😀'.repeat(50) + '\\boxed{5}', groundTruth: '5', params: { strict_box_verify: true, pause_tokens_index: [0, 0, 0, 150] },
    score: 1, acc: true, pred: '5',
  },
  {
    name: 'pause index: applies to the 300-clipped text', solution: 'z'.repeat(100) + '\\boxed{5}' + 'x'.repeat(291), groundTruth: '5', params: { strict_box_verify: true, pause_tokens_index: [0, 0, 0, 100] },
    score: 1, acc: true, pred: '5',
  },
];

// Inputs on which verl itself raises; we answer with an AppError.
const RAISES: RaisingCase[] = [
  { name: 'numeric ground truth raises in Minerva mode (verl raises AttributeError)', solution: 'Answer: 5', groundTruth: 5 },
  { name: 'null ground truth raises in Minerva mode (verl raises AttributeError)', solution: 'Answer: 5', groundTruth: null },
];

describe('mathDapoScorer (verl math_dapo.compute_score)', () => {
  itScoresLikeVerl(mathDapoScorer, CASES, RAISES);
});

describe('MathDapoParams', () => {
  it("defaults to verl's keyword defaults", () => {
    expect(MathDapoParams.parse({})).toEqual({ strict_box_verify: false, pause_tokens_index: null });
  });

  it('requires 4 pause token indexes on the strict-box path (verl asserts)', () => {
    expect(MathDapoParams.safeParse({ strict_box_verify: true, pause_tokens_index: [1, 2, 3] }).success).toBe(false);
    expect(MathDapoParams.safeParse({ strict_box_verify: true, pause_tokens_index: [1, 2, 3, 4] }).success).toBe(true);
  });

  it('ignores pause_tokens_index without strict_box_verify, as verl does', () => {
    expect(MathDapoParams.safeParse({ pause_tokens_index: [1] }).success).toBe(true);
  });

  it.each([{ strict_box_verify: 'yes' }, { pause_tokens_index: [1.5, 2, 3, 4] }, { unknown_key: 1 }])('rejects %j', (params) => {
    expect(MathDapoParams.safeParse(params).success).toBe(false);
  });
});
