import { AppError, ErrorCode, isErrorCode } from '@rl/service-kit/core';
import type { EnvPort, PortCall, ScoreItem } from '../env-port.ts';

/** Scores one item through the port; an error slot becomes an {@link AppError} with its code. */
export async function scoreOne(port: EnvPort, item: ScoreItem, call: PortCall): Promise<number> {
  const [slot] = await port.score([item], call);
  if (slot === undefined) throw new AppError(ErrorCode.Internal, 'scoring returned no result');
  if ('error' in slot) throw new AppError(isErrorCode(slot.error.code) ? slot.error.code : ErrorCode.Internal, `scoring failed: ${slot.error.message}`);
  return slot.score;
}

/** gsm8k scoring as verl's tool and interaction call `gsm8k.compute_score` (format_score 0.0, score 1.0). */
export function gsm8kItem(solution: string, groundTruth: unknown, method: 'strict' | 'flexible'): ScoreItem {
  return { data_source: 'openai/gsm8k', solution_str: solution, ground_truth: groundTruth, params: { method, format_score: 0, score: 1 } };
}
