// verl search_r1_like_qa_em: answer extraction, tag counting and reading
// ground_truth['target'], shared by the EM and SubEM scorers.
import { AppError, ErrorCode } from '@rl/service-kit/core';
import { z } from 'zod';
import type { Scorer } from '../scorer.ts';
import { pyCount } from '../py/str.ts';
import { pyStrip } from '../py/whitespace.ts';
import { memoizeString } from '../memo.ts';
import { normalizeAnswer } from './qa-normalize.ts';

const normalizeGold = memoizeString(normalizeAnswer);

const OPEN = '<answer>';
const CLOSE = '</answer>';

/** Keyword options of verl `compute_score` / `compute_score_subem`, with its defaults. */
export const QaParams = z.strictObject({
  // Accepted and ignored, as in verl.
  method: z.string().default('strict'),
  format_score: z.number().default(0.0),
  score: z.number().default(1.0),
});
/** Parsed QA options. */
export type QaParams = z.infer<typeof QaParams>;

/**
 * verl `extract_solution`: the stripped content of the last `<answer>...</answer>`
 * (re.finditer(r"<answer>(.*?)</answer>", DOTALL)), or null. An indexOf scan
 * gives the same non-overlapping, leftmost-lazy matches.
 */
export function extractQaAnswer(s: string): string | null {
  let last: string | null = null;
  let from = 0;
  for (;;) {
    const open = s.indexOf(OPEN, from);
    if (open < 0) break;
    const close = s.indexOf(CLOSE, open + OPEN.length);
    if (close < 0) break;
    last = s.slice(open + OPEN.length, close);
    from = close + CLOSE.length;
  }
  return last === null ? null : pyStrip(last);
}

/** verl `count_answer_tags` exceeds 10 for either tag (the EM penalty trigger). */
export function tooManyAnswerTags(s: string): boolean {
  return pyCount(s, OPEN) > 10 || pyCount(s, CLOSE) > 10;
}

function invalid(message: string): AppError {
  return new AppError(ErrorCode.InvalidGroundTruth, message);
}

/**
 * verl `ground_truth['target']`. Our extension: a bare string or list is taken
 * as the target itself (verl would raise TypeError on it).
 */
export function readTarget(groundTruth: unknown): unknown {
  if (typeof groundTruth === 'string' || Array.isArray(groundTruth)) return groundTruth;
  if (typeof groundTruth === 'object' && groundTruth !== null && Object.hasOwn(groundTruth, 'target')) {
    return (groundTruth as { target: unknown }).target;
  }
  throw invalid('ground_truth must be {"target": string | string[]} (or a string or list of strings)');
}

/**
 * verl `em_check` / `subem_check` loop: true at the first golden answer whose
 * normalised form passes `test`. Like verl, entries after a match are never
 * looked at; reaching a non-string one raises.
 */
export function anyTargetMatches(target: unknown, test: (normalizedGold: string) => boolean): boolean {
  const golds = typeof target === 'string' ? [target] : target;
  if (!Array.isArray(golds)) throw invalid('ground_truth.target must be a string or a list of strings');
  for (const gold of golds as unknown[]) {
    if (typeof gold !== 'string') throw invalid('ground_truth.target must be a string or a list of strings');
    if (test(normalizeGold(gold))) return true;
  }
  return false;
}

/** How an EM-family scorer differs: the match test and whether verl's tag-flood penalty applies. */
export interface QaVariant {
  name: string;
  matches: (normalizedGold: string, normalizedPred: string) => boolean;
  /** verl EM quarters the score when either answer tag appears more than 10 times; SubEM does not. */
  tagFloodPenalty: boolean;
}

/** The shared body of verl's `compute_score` / `compute_score_subem`. */
export function createQaScorer(v: QaVariant): Scorer<QaParams> {
  return {
    name: v.name,
    params: QaParams,
    score({ solution, groundTruth, params }) {
      // verl reads ground_truth['target'] in a random debug print even without an
      // answer; we check it on every call so a bad ground truth fails deterministically.
      const target = readTarget(groundTruth);
      const pred = extractQaAnswer(solution);
      // No <answer> scores 0, not format_score.
      if (pred === null) return { score: 0, extra: { acc: false, pred } };
      const normalizedPred = normalizeAnswer(pred);
      const acc = anyTargetMatches(target, (gold) => v.matches(gold, normalizedPred));
      const score = acc ? (v.tagFloodPenalty && tooManyAnswerTags(solution) ? params.score / 4 : params.score) : params.format_score;
      return { score, extra: { acc, pred } };
    },
  };
}
