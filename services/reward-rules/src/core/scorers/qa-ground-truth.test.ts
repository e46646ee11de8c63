import { ErrorCode } from '@rl/service-kit/core';
import { describe, expect, it } from 'vitest';
import { QaParams } from './qa-answer.ts';
import { qaEmScorer } from './qa-em.ts';
import { qaSubemScorer } from './qa-subem.ts';

describe.each([qaEmScorer, qaSubemScorer])('$name ground_truth handling', (scorer) => {
  const params = QaParams.parse({});
  const score = (solution: string, groundTruth: unknown) => scorer.score({ solution, groundTruth, params, extraInfo: undefined }).score;

  it('accepts a bare string or list as the target (our extension; verl needs {target})', () => {
    expect(score('<answer>Paris</answer>', 'Paris')).toBe(1);
    expect(score('<answer>Paris</answer>', ['Rome', 'Paris'])).toBe(1);
  });

  it('checks ground_truth["target"] even without an answer (verl reads it in a random debug print)', () => {
    expect(() => score('no tags', { answer: 'Paris' })).toThrow(expect.objectContaining({ code: ErrorCode.InvalidGroundTruth }));
    expect(() => score('no tags', 42)).toThrow(expect.objectContaining({ code: ErrorCode.InvalidGroundTruth }));
    expect(score('no tags', { target: 42 })).toBe(0);
  });

  it("defaults to verl's keyword defaults", () => {
    expect(params).toEqual({ method: 'strict', format_score: 0, score: 1 });
  });
});
