import { turnSeed } from '../seeds.ts';
import type { SamplingParams } from '../policy-types.ts';
import type { AgentInput } from './agent-types.ts';

/**
 * Sampling parameters of the next model turn: `max_tokens` clamped to what the
 * response budget and the backend's sequence limit leave, and the turn's seed.
 * Returns undefined when no room is left.
 */
export function nextTurnParams(input: AgentInput, turn: number): SamplingParams | undefined {
  const { conversation, sampling, limits } = input;
  const room = Math.min(sampling.maxTokens, limits.maxResponseTokens - conversation.responseLength(), conversation.sequenceRoom());
  if (room <= 0) return undefined;
  const seed = turnSeed(input.seed, turn);
  const { seed: _ignored, ...rest } = sampling;
  return seed === undefined ? { ...rest, maxTokens: room } : { ...rest, maxTokens: room, seed };
}
