// The worked solution of a problem in GSM8K's answer layout: one line per
// step, then the final answer. `sentence` ends with "The answer is N." the
// way imperfect SFT data does, which verl's strict GSM8K reward scores 0.
import type { WordProblem } from './problem.ts';

/** How the final answer is written. */
export const AnswerStyle = { Hash: 'hash', Sentence: 'sentence' } as const;
/** One of {@link AnswerStyle}. */
export type AnswerStyle = (typeof AnswerStyle)[keyof typeof AnswerStyle];

/**
 * The solution text: `4 + 7 = 11` lines, then `#### 11` or `The answer is 11.`;
 * with `worked: false` the answer line alone, as answer-only rows of real SFT
 * data give it (a small model that imitates those guesses instead of working).
 * `shown` is the number the answer line gives (a careless answer-only row's is off).
 */
export function formatSolution(problem: WordProblem, style: AnswerStyle, worked = true, shown = problem.answer): string {
  const lines = worked ? problem.steps.map((s) => `${s.left} ${s.op} ${s.right} = ${s.result}`) : [];
  if (worked && lines.length === 0) lines.push(`${problem.answer}`);
  lines.push(style === AnswerStyle.Hash ? `#### ${shown}` : `The answer is ${shown}.`);
  return lines.join('\n');
}
