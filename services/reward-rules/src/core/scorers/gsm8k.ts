import { z } from 'zod';
import { pyTail } from '../py/code-points.ts';
import type { Scorer } from '../scorer.ts';

// verl gsm8k._SOLUTION_CLIP_CHARS: only the last 300 code points are searched.
const SOLUTION_CLIP_CHARS = 300;
// gsm8k.extract_solution patterns; `[0-9]` is ASCII in both engines.
const STRICT_ANSWER = /#### (-?[0-9.,]+)/g;
const FLEXIBLE_NUMBER = /-?[0-9.,]+/g;

/** Keyword options of verl `gsm8k.compute_score`, with its defaults. */
export const Gsm8kParams = z.strictObject({
  method: z.enum(['strict', 'flexible']).default('strict'),
  format_score: z.number().default(0.0),
  score: z.number().default(1.0),
});
/** Parsed gsm8k options. */
export type Gsm8kParams = z.infer<typeof Gsm8kParams>;

/** verl `gsm8k.extract_solution`: the final answer, or null when none is found. */
export function extractGsm8kAnswer(solution: string, method: Gsm8kParams['method']): string | null {
  const tail = pyTail(solution, SOLUTION_CLIP_CHARS);
  if (method === 'strict') {
    let last: string | undefined;
    // Module-level /g regex: reset lastIndex before the scan (exec loop is faster than matchAll).
    STRICT_ANSWER.lastIndex = 0;
    for (let m = STRICT_ANSWER.exec(tail); m !== null; m = STRICT_ANSWER.exec(tail)) last = m[1];
    // verl also strips "$", which the pattern can never capture; kept for fidelity.
    return last === undefined ? null : last.replaceAll(',', '').replaceAll('$', '');
  }
  const numbers = tail.match(FLEXIBLE_NUMBER);
  if (numbers === null) return null;
  // verl loops over reversed(answer) and breaks on the first valid one; when
  // every match is "." the loop ends with the first match, which is ".".
  // Commas are NOT removed in flexible mode.
  for (let i = numbers.length - 1; i >= 0; i--) {
    const n = numbers[i] as string;
    if (n !== '.') return n;
  }
  return numbers[0] as string;
}

/** verl `gsm8k.compute_score`: exact string match of the extracted answer. */
export const gsm8kScorer: Scorer<Gsm8kParams> = {
  name: 'gsm8k',
  params: Gsm8kParams,
  score({ solution, groundTruth, params }) {
    const pred = extractGsm8kAnswer(solution, params.method);
    // Python `answer == ground_truth`: a non-string ground truth never matches.
    const acc = pred !== null && pred === groundTruth;
    // No answer scores 0 (not format_score), as in verl.
    const score = pred === null ? 0 : acc ? params.score : params.format_score;
    return { score, extra: { acc, pred } };
  },
};
