import { describe } from 'vitest';
import { itScoresLikeVerl, type RaisingCase, type ScorerCase } from './testing/scorer-table.ts';
import { qaSubemScorer } from './qa-subem.ts';

// Expected values come from running verl's search_r1_like_qa_em.compute_score_subem (verl b178a3c) on the same inputs.
const CASES: ScorerCase[] = [
  {
    name: 'golden answer inside the prediction',
    solution: '<answer>The capital is Paris.</answer>',
    groundTruth: { target: ['Paris'] },
    score: 1,
    acc: true,
    pred: 'The capital is Paris.',
  },
  {
    name: 'substring, not token match',
    solution: '<answer>parisian</answer>',
    groundTruth: { target: 'Paris' },
    score: 1,
    acc: true,
    pred: 'parisian',
  },
  {
    name: 'no match scores format_score 0',
    solution: '<answer>London</answer>',
    groundTruth: { target: ['Paris'] },
    score: 0,
    acc: false,
    pred: 'London',
  },
  {
    name: 'no answer tag scores 0',
    solution: 'Paris',
    groundTruth: { target: ['Paris'] },
    score: 0,
    acc: false,
    pred: null,
  },
  {
    name: 'second golden answer matches',
    solution: '<answer>in NYC now</answer>',
    groundTruth: { target: ['New York', 'nyc'] },
    score: 1,
    acc: true,
    pred: 'in NYC now',
  },
  {
    name: 'articles removed from the golden answer',
    solution: '<answer>paris france</answer>',
    groundTruth: { target: 'The Paris' },
    score: 1,
    acc: true,
    pred: 'paris france',
  },
  {
    name: 'empty golden answer always matches',
    solution: '<answer>anything</answer>',
    groundTruth: { target: '' },
    score: 1,
    acc: true,
    pred: 'anything',
  },
  {
    name: 'no tag-count penalty',
    solution: '<answer>Paris</answer>' + '</answer>'.repeat(20),
    groundTruth: { target: 'Paris' },
    score: 1,
    acc: true,
    pred: 'Paris',
  },
  {
    name: 'last answer wins',
    solution: '<answer>Paris</answer><answer>Rome</answer>',
    groundTruth: { target: 'Paris' },
    score: 0,
    acc: false,
    pred: 'Rome',
  },
  {
    name: 'custom scores',
    solution: '<answer>Rome</answer>',
    groundTruth: { target: 'Paris' },
    params: { score: 2, format_score: 0.5 },
    score: 0.5,
    acc: false,
    pred: 'Rome',
  },
  {
    name: 'Unicode \\b: "the" in "theé" is not an article',
    solution: '<answer>the é</answer>',
    groundTruth: { target: 'theé' },
    score: 0,
    acc: false,
    pred: 'the é',
  },
];

// Inputs on which verl itself raises; we answer with an AppError.
const RAISES: RaisingCase[] = [
  { name: 'non-string entry before a match raises (verl raises AttributeError)', solution: '<answer>Paris</answer>', groundTruth: { target: [null, 'Paris'] } },
];

describe('qaSubemScorer (verl search_r1_like_qa_em.compute_score_subem)', () => {
  itScoresLikeVerl(qaSubemScorer, CASES, RAISES);
});
