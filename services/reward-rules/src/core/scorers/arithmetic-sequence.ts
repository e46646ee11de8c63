// verl's digit-completion task (tests/special_e2e/envs/digit_completion/task.py),
// the reward of its own end-to-end RL test: the prompt `a,b:max,n` asks for the
// next n numbers of the sequence a, b, ... modulo max; every response character
// that matches the expected answer, up to the first mismatch, earns
// sequence_reward / (len(answer) + 1) (the +1 is the EOS that a string never
// matches, so the best score is len/(len+1)). The score is the sum of those
// dense per-character rewards; `extra.token_rewards` keeps them.
import { AppError, ErrorCode } from '@rl/service-kit/core';
import { z } from 'zod';
import type { Scorer } from '../scorer.ts';

/** Keyword options of task.py `compute_reward`. */
export const ArithmeticSequenceParams = z.strictObject({
  sequence_reward: z.number().default(1.0),
});
export type ArithmeticSequenceParams = z.infer<typeof ArithmeticSequenceParams>;

// The end-of-sequence character of verl's CharTokenizer: what follows it is not the answer.
const EOS = 'E';
const PROMPT = /^(\d+),(\d+):(\d+),(\d+)$/;

/** task.py `generate_ground_truth_response`: the next n numbers, comma separated. */
export function arithmeticAnswer(prompt: string): string {
  const m = PROMPT.exec(prompt.trim());
  if (m === null)
    throw new AppError(
      ErrorCode.InvalidGroundTruth,
      `ground_truth must be the task prompt "first,second:max_number,count", got ${JSON.stringify(prompt.slice(0, 80))}`,
    );
  const [first, second, max, count] = m.slice(1).map(Number) as [number, number, number, number];
  if (max <= 0) throw new AppError(ErrorCode.InvalidGroundTruth, 'ground_truth: max_number must be positive');
  const mod = (x: number) => ((x % max) + max) % max; // Python's % on a positive modulus
  const diff = mod(second - first);
  const out: string[] = [];
  let last = second;
  for (let i = 0; i < count; i++) {
    last = mod(last + diff);
    out.push(String(last));
  }
  return out.join(',');
}

/** The prompt: `ground_truth`, else `extra_info.prompt` (the fixture's only column). */
function promptOf(groundTruth: unknown, extraInfo: Record<string, unknown> | undefined): string {
  if (typeof groundTruth === 'string' && groundTruth !== '') return groundTruth;
  const p = extraInfo?.prompt;
  if (typeof p === 'string') return p;
  throw new AppError(ErrorCode.InvalidGroundTruth, 'ground_truth (or extra_info.prompt) must be the task prompt string');
}

/**
 * task.py `compute_reward`, summed. `acc`: every answer character was produced,
 * in order (what the reward measures: the score is then maximal); `exact`: the
 * response is the answer and nothing else (up to the EOS char `E`, if any).
 */
export const arithmeticSequenceScorer: Scorer<ArithmeticSequenceParams> = {
  name: 'arithmetic_sequence',
  params: ArithmeticSequenceParams,
  score({ solution, groundTruth, params, extraInfo }) {
    const answer = arithmeticAnswer(promptOf(groundTruth, extraInfo));
    const perToken = params.sequence_reward / (answer.length + 1);
    const tokenRewards = new Array<number>(solution.length).fill(0);
    let matched = 0;
    for (let i = 0; i < solution.length && matched < answer.length; i++) {
      if (solution[i] !== answer[matched]) break;
      tokenRewards[i] = perToken;
      matched++;
    }
    const eos = solution.indexOf(EOS);
    const exact = (eos === -1 ? solution : solution.slice(0, eos)) === answer;
    // numpy float32 accumulation in verl; the sum of equal terms is exact enough in float64.
    return { score: matched * perToken, extra: { acc: matched === answer.length, exact, ground_truth_response: answer, matched, token_rewards: tokenRewards } };
  },
};
