import { z } from 'zod';
import { AppError, ErrorCode } from '@rl/service-kit/core';
import type { Scorer } from '../scorer.ts';
import { extractBoxedContent, gradeAnswer } from '../symbolic/mathruler/grader.ts';

/** Keyword options of verl `geo3k.compute_score`, with its defaults. */
export const Geo3kParams = z.strictObject({
  use_boxed: z.boolean().default(true),
  format_score: z.number().default(0.1),
});
/** Parsed geo3k options. */
export type Geo3kParams = z.infer<typeof Geo3kParams>;

const THINK_OPEN = '<think>';
const THINK_CLOSE = '</think>';
const BOXED = '\\boxed{';

/**
 * verl `geo3k.format_reward`: re.fullmatch(r"<think>.*</think>.*\\boxed\{.*\}.*", DOTALL).
 * Taking the earliest occurrence of each literal in turn decides the same match
 * in linear time (the regex would backtrack).
 */
export function geo3kFormatOk(predict: string): boolean {
  if (!predict.startsWith(THINK_OPEN)) return false;
  const close = predict.indexOf(THINK_CLOSE, THINK_OPEN.length);
  if (close === -1) return false;
  const box = predict.indexOf(BOXED, close + THINK_CLOSE.length);
  return box !== -1 && predict.indexOf('}', box + BOXED.length) !== -1;
}

function groundTruthOf(raw: unknown): string | null {
  if (typeof raw === 'string') return raw;
  // grade_answer(answer, None) returns False; any other type raises in normalize_answer's `.strip()`.
  if (raw === null) return null;
  throw new AppError(ErrorCode.InvalidGroundTruth, 'geo3k ground_truth must be a string');
}

/** verl `geo3k.compute_score`: (1 - format_score) * accuracy + format_score * format. */
export const geo3kScorer: Scorer<Geo3kParams> = {
  name: 'geo3k',
  params: Geo3kParams,
  score({ solution, groundTruth, params }) {
    const truth = groundTruthOf(groundTruth);
    const pred = params.use_boxed ? extractBoxedContent(solution) : solution;
    const acc = gradeAnswer(pred, truth);
    const format = geo3kFormatOk(solution);
    // Same float arithmetic and order as verl.
    const score = (1.0 - params.format_score) * (acc ? 1.0 : 0.0) + params.format_score * (format ? 1.0 : 0.0);
    return { score, extra: { acc, format, pred } };
  },
};
