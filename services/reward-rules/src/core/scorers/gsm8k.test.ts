import { describe, expect, it } from 'vitest';
import { itScoresLikeVerl, type ScorerCase } from './scorer-table.test-support.ts';
import { Gsm8kParams, gsm8kScorer } from './gsm8k.ts';


// Expected values come from running verl's gsm8k.compute_score and extract_solution (verl b178a3c) on the same inputs.
const CASES: ScorerCase[] = [
  {
    name: 'strict: "#### 72" matches', solution: 'Natalia sold 48 + 24 = 72 clips.\n#### 72', groundTruth: '72',
    score: 1, acc: true, pred: '72',
  },
  {
    name: 'strict: wrong answer scores format_score 0', solution: '#### 71', groundTruth: '72',
    score: 0, acc: false, pred: '71',
  },
  {
    name: 'strict: commas are removed', solution: 'So #### 1,000', groundTruth: '1000',
    score: 1, acc: true, pred: '1000',
  },
  {
    name: 'strict: several commas', solution: '#### 1,2,3', groundTruth: '123',
    score: 1, acc: true, pred: '123',
  },
  {
    name: 'strict: "$" after "#### " is not captured', solution: '#### $18', groundTruth: '18',
    score: 0, acc: false, pred: null,
  },
  {
    name: 'strict: no space after ####', solution: '####72', groundTruth: '72',
    score: 0, acc: false, pred: null,
  },
  {
    name: 'strict: two spaces after ####', solution: '####  72', groundTruth: '72',
    score: 0, acc: false, pred: null,
  },
  {
    name: 'strict: negative number', solution: '#### -5', groundTruth: '-5',
    score: 1, acc: true, pred: '-5',
  },
  {
    name: 'strict: decimal kept verbatim', solution: '#### 3.50', groundTruth: '3.5',
    score: 0, acc: false, pred: '3.50',
  },
  {
    name: 'strict: trailing period kept', solution: 'The answer: #### 72.', groundTruth: '72',
    score: 0, acc: false, pred: '72.',
  },
  {
    name: 'strict: "." alone is an answer', solution: '#### .', groundTruth: '.',
    score: 1, acc: true, pred: '.',
  },
  {
    name: 'strict: "-," is an answer', solution: '#### -,', groundTruth: '-',
    score: 1, acc: true, pred: '-',
  },
  {
    name: 'strict: last of several ####', solution: '#### 1\nthen #### 2', groundTruth: '2',
    score: 1, acc: true, pred: '2',
  },
  {
    name: 'strict: first of several does not count', solution: '#### 1\nthen #### 2', groundTruth: '1',
    score: 0, acc: false, pred: '2',
  },
  {
    name: 'strict: digits glued after the number end the match', solution: '#### 12abc34', groundTruth: '12',
    score: 1, acc: true, pred: '12',
  },
  {
    name: 'strict: Arabic-Indic digits are not [0-9]', solution: '#### ٧٢', groundTruth: '٧٢',
    score: 0, acc: false, pred: null,
  },
  {
    name: 'strict: fullwidth digits are not [0-9]', solution: '#### ７２', groundTruth: '72',
    score: 0, acc: false, pred: null,
  },
  {
    name: 'strict: ASCII prefix before Unicode digits', solution: '#### 7٢', groundTruth: '7',
    score: 1, acc: true, pred: '7',
  },
  {
    name: 'strict: no number at all', solution: 'I do not know', groundTruth: '72',
    score: 0, acc: false, pred: null,
  },
  {
    name: 'strict: empty solution', solution: '', groundTruth: '72',
    score: 0, acc: false, pred: null,
  },
  {
    name: 'strict: ground truth with comma never matches', solution: '#### 1,000', groundTruth: '1,000',
    score: 0, acc: false, pred: '1000',
  },
  {
    name: 'flexible: last number', solution: 'First 12 then 72', groundTruth: '72', params: { method: 'flexible' },
    score: 1, acc: true, pred: '72',
  },
  {
    name: 'flexible: trailing period is part of the number', solution: 'The answer is 72.', groundTruth: '72', params: { method: 'flexible' },
    score: 0, acc: false, pred: '72.',
  },
  {
    name: 'flexible: trailing period, ground truth with period', solution: 'The answer is 72.', groundTruth: '72.', params: { method: 'flexible' },
    score: 1, acc: true, pred: '72.',
  },
  {
    name: 'flexible: commas are kept', solution: 'It costs 1,000 dollars', groundTruth: '1,000', params: { method: 'flexible' },
    score: 1, acc: true, pred: '1,000',
  },
  {
    name: 'flexible: a final "." is skipped', solution: 'Total 12 . ', groundTruth: '12', params: { method: 'flexible' },
    score: 1, acc: true, pred: '12',
  },
  {
    name: 'flexible: only dots yields "."', solution: 'Hello. World.', groundTruth: '.', params: { method: 'flexible' },
    score: 1, acc: true, pred: '.',
  },
  {
    name: 'flexible: "-." is a valid answer', solution: 'x -. y', groundTruth: '-.', params: { method: 'flexible' },
    score: 1, acc: true, pred: '-.',
  },
  {
    name: 'flexible: negative', solution: 'x = -3', groundTruth: '-3', params: { method: 'flexible' },
    score: 1, acc: true, pred: '-3',
  },
  {
    name: 'flexible: reads the "####" answer too', solution: '#### 72', groundTruth: '72', params: { method: 'flexible' },
    score: 1, acc: true, pred: '72',
  },
  {
    name: 'flexible: no digits or dots', solution: 'none here', groundTruth: '72', params: { method: 'flexible' },
    score: 0, acc: false, pred: null,
  },
  {
    name: 'flexible: Unicode digits ignored', solution: 'answer ٧٢ and 5', groundTruth: '5', params: { method: 'flexible' },
    score: 1, acc: true, pred: '5',
  },
  {
    name: 'format_score on a wrong answer', solution: '#### 71', groundTruth: '72', params: { format_score: 0.1 },
    score: 0.1, acc: false, pred: '71',
  },
  {
    name: 'format_score is not given without an answer', solution: 'no answer', groundTruth: '72', params: { format_score: 0.1 },
    score: 0, acc: false, pred: null,
  },
  {
    name: 'custom score on a right answer', solution: '#### 72', groundTruth: '72', params: { score: 2.5, format_score: -0.5 },
    score: 2.5, acc: true, pred: '72',
  },
  {
    name: 'flexible with custom scores', solution: 'so 7', groundTruth: '72', params: { method: 'flexible', score: 2, format_score: 0.25 },
    score: 0.25, acc: false, pred: '7',
  },
  {
    name: 'numeric ground truth never equals a string', solution: '#### 72', groundTruth: 72,
    score: 0, acc: false, pred: '72',
  },
  {
    name: 'null ground truth', solution: '#### 72', groundTruth: null,
    score: 0, acc: false, pred: '72',
  },
  {
    name: 'list ground truth', solution: '#### 72', groundTruth: ['72'],
    score: 0, acc: false, pred: '72',
  },
  {
    name: 'clip: 300 code points keep the whole "#### 72"', solution: '#### 72' + 'y'.repeat(293), groundTruth: '72',
    score: 1, acc: true, pred: '72',
  },
  {
    name: 'clip: 301 code points cut the first "#"', solution: '#### 72' + 'y'.repeat(294), groundTruth: '72',
    score: 0, acc: false, pred: null,
  },
  {
    name: 'clip: astral padding counts one per code point (kept)', solution: '#### 72' + '😀'.repeat(293), groundTruth: '72',
    score: 1, acc: true, pred: '72',
  },
  {
    name: 'clip: astral padding counts one per code point (cut)', solution: '#### 72' + '😀'.repeat(294), groundTruth: '72',
    score: 0, acc: false, pred: null,
  },
  {
    name: 'clip: astral characters before the answer are dropped, answer kept', solution: '😀'.repeat(294) + '#### 72', groundTruth: '72',
    score: 1, acc: true, pred: '72',
  },
  {
    name: 'clip: flexible loses the minus sign at the boundary', solution: '-7' + '😀'.repeat(299), groundTruth: '7', params: { method: 'flexible' },
    score: 1, acc: true, pred: '7',
  },
  {
    name: 'clip: flexible keeps the minus sign at exactly 300', solution: '-7' + '😀'.repeat(298), groundTruth: '-7', params: { method: 'flexible' },
    score: 1, acc: true, pred: '-7',
  },
  {
    name: 'clip: astral character right at the cut', solution: '😀9' + 'a'.repeat(299), groundTruth: '9', params: { method: 'flexible' },
    score: 1, acc: true, pred: '9',
  },
  {
    name: 'clip: lone surrogate counts as one code point', solution: '5' + '\ud800' + 'a'.repeat(299), groundTruth: '5', params: { method: 'flexible' },
    score: 0, acc: false, pred: null,
  },
];

describe('gsm8kScorer (verl gsm8k.compute_score)', () => {
  itScoresLikeVerl(gsm8kScorer, CASES);
});

describe('Gsm8kParams', () => {
  it("defaults to verl's keyword defaults", () => {
    expect(Gsm8kParams.parse({})).toEqual({ method: 'strict', format_score: 0, score: 1 });
  });

  it.each([{ method: 'loose' }, { format_score: '0.1' }, { score: Number.NaN }, { unknown_key: 1 }])('rejects %j', (params) => {
    expect(Gsm8kParams.safeParse(params).success).toBe(false);
  });
});
