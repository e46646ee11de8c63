import { z } from 'zod';
import type { Scorer } from '../scorer.ts';
import { lastBoxedOnlyString, removeBoxed } from './math-reward-boxed.ts';
import { memoizeString } from '../memo.ts';
import { stripString } from './math-reward-strip.ts';

// Ground truths repeat (n responses per prompt); model answers mostly do not.
const stripGroundTruth = memoizeString(stripString);

/** verl `math_reward.compute_score` takes no keyword options. */
export const MathRewardParams = z.strictObject({});
/** Parsed math_reward options (none). */
export type MathRewardParams = z.infer<typeof MathRewardParams>;

/** verl `math_reward.is_equiv` for a string answer against any ground truth. */
export function isEquiv(answer: string, groundTruth: unknown): boolean {
  // verl's try/except: when strip_string raises, compare the raw values.
  const ss1 = stripString(answer);
  if (ss1 === null) return answer === groundTruth;
  // strip_string(non-str) raises AttributeError, and `str == non-str` is False (None included).
  if (typeof groundTruth !== 'string') return false;
  const ss2 = stripGroundTruth(groundTruth);
  if (ss2 === null) return answer === groundTruth;
  return ss1 === ss2;
}

/** verl `math_reward.compute_score`: 1.0 when the last boxed answer is equivalent, else 0.0. */
export const mathRewardScorer: Scorer<MathRewardParams> = {
  name: 'math_reward',
  params: MathRewardParams,
  score({ solution, groundTruth }) {
    const boxed = lastBoxedOnlyString(solution);
    // A failed remove_boxed assert is caught by compute_score's `except Exception`: 0.0.
    const pred = boxed === null ? null : removeBoxed(boxed);
    const acc = pred !== null && isEquiv(pred, groundTruth);
    return { score: acc ? 1.0 : 0.0, extra: { acc, pred } };
  },
};
