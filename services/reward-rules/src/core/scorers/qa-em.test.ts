import { describe } from 'vitest';
import { itScoresLikeVerl, type RaisingCase, type ScorerCase } from './scorer-table.test-support.ts';
import { qaEmScorer } from './qa-em.ts';


// Expected values come from running verl's search_r1_like_qa_em.compute_score (verl b178a3c) on the same inputs.
const CASES: ScorerCase[] = [
  {
    name: 'exact answer', solution: '<answer>Paris</answer>', groundTruth: { target: ['Paris'] },
    score: 1, acc: true, pred: 'Paris',
  },
  {
    name: 'case, punctuation, articles and spaces are normalised', solution: '<answer>  The PARIS!  </answer>', groundTruth: { target: 'paris' },
    score: 1, acc: true, pred: 'The PARIS!',
  },
  {
    name: 'wrong answer scores format_score 0', solution: '<answer>London</answer>', groundTruth: { target: ['Paris'] },
    score: 0, acc: false, pred: 'London',
  },
  {
    name: 'no answer tag scores 0', solution: 'Paris', groundTruth: { target: ['Paris'] },
    score: 0, acc: false, pred: null,
  },
  {
    name: 'unclosed tag scores 0', solution: '<answer>Paris', groundTruth: { target: ['Paris'] },
    score: 0, acc: false, pred: null,
  },
  {
    name: 'last of several answers wins', solution: '<answer>London</answer> then <answer>Paris</answer>', groundTruth: { target: ['Paris'] },
    score: 1, acc: true, pred: 'Paris',
  },
  {
    name: 'earlier answers do not count', solution: '<answer>Paris</answer> then <answer>London</answer>', groundTruth: { target: ['Paris'] },
    score: 0, acc: false, pred: 'London',
  },
  {
    name: 'nested opening tag stays in the answer', solution: '<answer><answer>Paris</answer>', groundTruth: { target: ['Paris'] },
    score: 0, acc: false, pred: '<answer>Paris',
  },
  {
    name: 'answer spans lines (DOTALL)', solution: '<answer>New\nYork</answer>', groundTruth: { target: 'new york' },
    score: 1, acc: true, pred: 'New\nYork',
  },
  {
    name: 'any golden answer in the list', solution: '<answer>NYC</answer>', groundTruth: { target: ['New York', 'NYC'] },
    score: 1, acc: true, pred: 'NYC',
  },
  {
    name: '"an" removed as a word', solution: '<answer>an apple</answer>', groundTruth: { target: 'apple' },
    score: 1, acc: true, pred: 'an apple',
  },
  {
    name: 'articles inside words stay', solution: '<answer>theater</answer>', groundTruth: { target: 'ater' },
    score: 0, acc: false, pred: 'theater',
  },
  {
    name: 'Unicode \\b: "a" before "é" is part of a word', solution: '<answer>aé paris</answer>', groundTruth: { target: 'é paris' },
    score: 0, acc: false, pred: 'aé paris',
  },
  {
    name: 'Unicode \\b: combining mark is not \\w, so "a" is a word', solution: '<answer>a\u0301 paris</answer>', groundTruth: { target: '\u0301 paris' },
    score: 1, acc: true, pred: 'a\u0301 paris',
  },
  {
    name: 'underscore and digits are word characters', solution: '<answer>a_b a1</answer>', groundTruth: { target: 'a_b a1' },
    score: 1, acc: true, pred: 'a_b a1',
  },
  {
    name: 'Unicode punctuation is kept', solution: '<answer>“Paris”</answer>', groundTruth: { target: 'Paris' },
    score: 0, acc: false, pred: '“Paris”',
  },
  {
    name: 'ideographic space and \\x1c are whitespace', solution: '<answer>New\u3000York\u001ccity</answer>', groundTruth: { target: 'new york city' },
    score: 1, acc: true, pred: 'New\u3000York\u001ccity',
  },
  {
    name: '\\ufeff is not whitespace', solution: '<answer>New\ufeffYork</answer>', groundTruth: { target: 'new york' },
    score: 0, acc: false, pred: 'New\ufeffYork',
  },
  {
    name: 'lower() is Unicode-aware', solution: '<answer>ÉCOLE</answer>', groundTruth: { target: 'école' },
    score: 1, acc: true, pred: 'ÉCOLE',
  },
  {
    name: 'final sigma in lower()', solution: '<answer>ΟΔΟΣ</answer>', groundTruth: { target: 'οδος' },
    score: 1, acc: true, pred: 'ΟΔΟΣ',
  },
  {
    name: 'ß does not expand in lower()', solution: '<answer>STRASSE</answer>', groundTruth: { target: 'straße' },
    score: 0, acc: false, pred: 'STRASSE',
  },
  {
    name: 'strip() uses Python whitespace', solution: '<answer>\u0085Paris\u2029</answer>', groundTruth: { target: 'Paris' },
    score: 1, acc: true, pred: 'Paris',
  },
  {
    name: 'empty golden answer matches an answer of articles only', solution: '<answer> the </answer>', groundTruth: { target: '' },
    score: 1, acc: true, pred: 'the',
  },
  {
    name: '10 closing tags: no penalty', solution: '<answer>Paris</answer>' + '</answer>'.repeat(9), groundTruth: { target: 'Paris' },
    score: 1, acc: true, pred: 'Paris',
  },
  {
    name: '11 closing tags: score / 4', solution: '<answer>Paris</answer>' + '</answer>'.repeat(10), groundTruth: { target: 'Paris' },
    score: 0.25, acc: true, pred: 'Paris',
  },
  {
    name: '11 opening tags: score / 4', solution: '<answer>Paris</answer>' + '<answer>'.repeat(10), groundTruth: { target: 'Paris' },
    score: 0.25, acc: true, pred: 'Paris',
  },
  {
    name: '11 pairs before the answer: score / 4', solution: '<answer></answer>'.repeat(10) + '<answer>Paris</answer>', groundTruth: { target: 'Paris' },
    score: 0.25, acc: true, pred: 'Paris',
  },
  {
    name: 'penalty applies to a custom score', solution: '<answer>Paris</answer>' + '</answer>'.repeat(10), groundTruth: { target: 'Paris' }, params: { score: 2 },
    score: 0.5, acc: true, pred: 'Paris',
  },
  {
    name: 'no penalty on a wrong answer', solution: '<answer>Rome</answer>' + '</answer>'.repeat(10), groundTruth: { target: 'Paris' }, params: { format_score: 0.1 },
    score: 0.1, acc: false, pred: 'Rome',
  },
  {
    name: 'format_score on a wrong answer', solution: '<answer>Rome</answer>', groundTruth: { target: 'Paris' }, params: { format_score: 0.1 },
    score: 0.1, acc: false, pred: 'Rome',
  },
  {
    name: 'format_score not given without an answer', solution: 'Rome', groundTruth: { target: 'Paris' }, params: { format_score: 0.1 },
    score: 0, acc: false, pred: null,
  },
  {
    name: 'method is accepted and ignored', solution: '<answer>Paris</answer>', groundTruth: { target: 'Paris' }, params: { method: 'flexible' },
    score: 1, acc: true, pred: 'Paris',
  },
  {
    name: 'entries after a match are not checked', solution: '<answer>Paris</answer>', groundTruth: { target: ['Paris', 5] },
    score: 1, acc: true, pred: 'Paris',
  },
  {
    name: 'empty target list never matches', solution: '<answer>Paris</answer>', groundTruth: { target: [] },
    score: 0, acc: false, pred: 'Paris',
  },
];

// Inputs on which verl itself raises; we answer with an AppError.
const RAISES: RaisingCase[] = [
  { name: 'a non-string entry before a match raises (verl raises AttributeError)', solution: '<answer>Paris</answer>', groundTruth: { target: [5, 'Paris'] } },
  { name: 'numeric target raises (verl raises TypeError)', solution: '<answer>Paris</answer>', groundTruth: { target: 5 } },
  { name: 'missing target raises (verl raises KeyError)', solution: '<answer>Paris</answer>', groundTruth: { answer: 'Paris' } },
];

describe('qaEmScorer (verl search_r1_like_qa_em.compute_score)', () => {
  itScoresLikeVerl(qaEmScorer, CASES, RAISES);
});
