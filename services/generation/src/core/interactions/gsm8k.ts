import type { EnvPort } from '../env-port.ts';
import { gsm8kItem, scoreOne } from '../tools/score-one.ts';
import type { Interaction } from './interaction.ts';

/** verl's `Gsm8kInteraction` feedback texts. */
export const GSM8K_CORRECT = 'Your response is correct!';
export const GSM8K_INCORRECT = 'Your response is incorrect! You need to reflect on your answer and try again.';

/**
 * verl's `Gsm8kInteraction`: scores the last assistant message (strict gsm8k,
 * through `reward.rules.score`) against `interaction_kwargs.ground_truth`; a
 * score of 1.0 ends the conversation, anything else asks for another try.
 */
export function createGsm8kInteraction(o: { name: string; port: EnvPort; timeoutMs: number }): Interaction {
  return {
    name: o.name,
    async respond(messages, kwargs, ctx) {
      const last = messages.findLast((m) => m.role === 'assistant');
      const groundTruth = kwargs.ground_truth;
      const reward =
        groundTruth === undefined || groundTruth === null
          ? 0
          : await scoreOne(o.port, gsm8kItem(last?.content ?? '', groundTruth, 'strict'), { signal: ctx.signal, timeoutMs: o.timeoutMs });
      return reward === 1 ? { done: true, text: GSM8K_CORRECT, reward } : { done: false, text: GSM8K_INCORRECT, reward };
    },
  };
}
