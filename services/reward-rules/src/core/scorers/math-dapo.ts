import { AppError, ErrorCode } from '@rl/service-kit/core';
import { z } from 'zod';
import { pySliceFrom, pyTail } from '../py/code-points.ts';
import { PY_WS_CLASS_BODY } from '../py/whitespace.ts';
import type { Scorer } from '../scorer.ts';
import { memoizeString } from '../memo.ts';
import { normalizeFinalAnswer } from './math-dapo-normalize.ts';
import { balancedBoxAt } from './math-reward-boxed.ts';

// Ground truths repeat (n responses per prompt); model answers mostly do not.
const normalizeGroundTruth = memoizeString(normalizeFinalAnswer);

// verl math_dapo.compute_score keeps only the last 300 code points.
const SOLUTION_CLIP_CHARS = 300;
// verl math_dapo.is_correct_strict_box looks at the last 100 code points.
const STRICT_BOX_CHARS = 100;
// is_correct_minerva's answer_pattern r"(?i)Answer\s*:\s*([^\n]+)"; `iu` folds
// "ſ" to "s" as Python's IGNORECASE does, and `\s` is Python's whitespace.
const ANSWER_PATTERN = new RegExp(`answer[${PY_WS_CLASS_BODY}]*:[${PY_WS_CLASS_BODY}]*([^\\n]+)`, 'giu');
const BOXED_BRACE = '\\boxed{';

/** Keyword options of verl `math_dapo.compute_score`, with its defaults. */
export const MathDapoParams = z
  .strictObject({
    strict_box_verify: z.boolean().default(false),
    pause_tokens_index: z.array(z.number().int()).nullable().default(null),
  })
  .superRefine((p, ctx) => {
    // verl asserts len(pause_tokens_index) == 4, but only on the strict-box path.
    if (p.strict_box_verify && p.pause_tokens_index !== null && p.pause_tokens_index.length !== 4) {
      ctx.addIssue({ code: 'custom', path: ['pause_tokens_index'], message: 'must hold exactly 4 indexes' });
    }
  });
/** Parsed math_dapo options. */
export type MathDapoParams = z.infer<typeof MathDapoParams>;

/** verl `math_dapo.last_boxed_only_string`: the last `\boxed{...}` (braces balanced) or null. */
export function lastBoxedOnlyStringDapo(s: string): string | null {
  const idx = s.lastIndexOf(BOXED_BRACE);
  return idx < 0 ? null : balancedBoxAt(s, idx);
}

/** verl `math_dapo.is_correct_strict_box`: raw (unnormalised) comparison of the last boxed content. */
export function strictBoxPrediction(solution: string, pauseTokensIndex: readonly number[] | null): string | null {
  const window = pauseTokensIndex === null ? pyTail(solution, STRICT_BOX_CHARS) : pySliceFrom(solution, (pauseTokensIndex[3] as number) - STRICT_BOX_CHARS);
  const boxed = lastBoxedOnlyStringDapo(window);
  // remove_boxed's asserts always hold for a string found by the "\boxed{" scan.
  return boxed === null ? null : boxed.slice(BOXED_BRACE.length, -1);
}

/** verl `math_dapo.is_correct_minerva` (prediction side): last "Answer:" line, normalised. */
export function minervaPrediction(solution: string): string {
  let last: string | undefined;
  // Module-level /g regex: reset lastIndex before the scan.
  ANSWER_PATTERN.lastIndex = 0;
  for (let m = ANSWER_PATTERN.exec(solution); m !== null; m = ANSWER_PATTERN.exec(solution)) last = m[1];
  return normalizeFinalAnswer(last ?? '[INVALID]');
}

/** verl `math_dapo.compute_score`: 1.0 / -1.0 with `{acc, pred}` as verl's dict. */
export const mathDapoScorer: Scorer<MathDapoParams> = {
  name: 'math_dapo',
  params: MathDapoParams,
  score({ solution, groundTruth, params }) {
    const clipped = pyTail(solution, SOLUTION_CLIP_CHARS);
    let acc: boolean;
    let pred: string | null;
    if (params.strict_box_verify) {
      pred = strictBoxPrediction(clipped, params.pause_tokens_index);
      // `extracted_pred == gt`: a non-string ground truth never matches, but
      // no box (None) against a null ground truth (None) is a match in verl.
      acc = pred === groundTruth || (pred === null && groundTruth === null);
    } else {
      pred = minervaPrediction(clipped);
      // normalize_final_answer(gt) calls gt.split: verl raises on a non-string.
      if (typeof groundTruth !== 'string') {
        throw new AppError(ErrorCode.InvalidGroundTruth, 'ground_truth must be a string for math_dapo');
      }
      acc = pred === normalizeGroundTruth(groundTruth);
    }
    return { score: acc ? 1.0 : -1.0, extra: { acc, pred } };
  },
};
