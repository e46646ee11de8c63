// Shared shape of the table-driven scorer tests: each row is an input and the
// output verl's own function gave for it.
import { AppError, ErrorCode } from '@rl/service-kit/core';
import { expect, it } from 'vitest';
import type { Scorer } from '../../scorer.ts';

/** One row: the input, and verl's score plus our `acc`/`pred` diagnostics for it. */
export interface ScorerCase {
  name: string;
  solution: string;
  groundTruth: unknown;
  params?: Record<string, unknown>;
  score: number;
  acc: boolean;
  pred: string | null;
}

/** A row where verl itself raises: we answer `invalid_ground_truth` (400). */
export type RaisingCase = Omit<ScorerCase, 'score' | 'acc' | 'pred'>;

function run(scorer: Scorer, c: RaisingCase) {
  return scorer.score({ solution: c.solution, groundTruth: c.groundTruth, params: scorer.params.parse(c.params ?? {}), extraInfo: undefined });
}

/** Registers one test per row (inside the caller's `describe`). */
export function itScoresLikeVerl(scorer: Scorer, cases: ReadonlyArray<ScorerCase>, raises: ReadonlyArray<RaisingCase> = []): void {
  it.each(cases)('$name', (c) => {
    expect(run(scorer, c)).toEqual({ score: c.score, extra: { acc: c.acc, pred: c.pred } });
  });
  if (raises.length === 0) return;
  it.each(raises)('$name', (c) => {
    expect(() => run(scorer, c)).toThrow(AppError);
    expect(() => run(scorer, c)).toThrow(expect.objectContaining({ code: ErrorCode.InvalidGroundTruth, status: 400 }));
  });
}
