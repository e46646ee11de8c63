import type { TemplateInput, TextSession } from '../backend.ts';
import type { ChatMessage } from '../policy-types.ts';
import { assistantTurn, assistantTurnOfCalls } from './assistant-turn.ts';
import type { Conversation } from './conversation.ts';

/**
 * A conversation over a chat-completions-only backend: messages only, no token
 * fields; the server applies its own chat template to the messages and tools.
 * The response budget counts the server's completion tokens; environment
 * messages are not counted (their token length is unknown here).
 */
export function startTextConversation(session: TextSession, initial: readonly ChatMessage[], template: TemplateInput = {}): Conversation {
  const messages: ChatMessage[] = [...initial];
  const toolsOffered = template.tools !== undefined;
  let modelTokens = 0;
  let turns = 0;
  return {
    tokenLevel: false,
    modelVersion: session.modelVersion,
    messages,
    promptLength: () => 0,
    responseLength: () => modelTokens,
    sequenceRoom: () => Number.POSITIVE_INFINITY,
    async generate(params, signal) {
      const r = await session.chat(messages, template, params, signal);
      modelTokens += r.completionTokens;
      turns++;
      // A server with a tool parser returns the calls itself; otherwise they are still in the text.
      const turn =
        toolsOffered && r.toolCalls !== undefined && r.toolCalls.length > 0
          ? assistantTurnOfCalls(r.text, r.toolCalls, turns)
          : assistantTurn(r.text, toolsOffered, turns);
      messages.push(turn.message);
      return { ...turn, finishReason: r.finishReason, tokenCount: r.completionTokens };
    },
    renderEnv: async (added) => ({ tokenCount: 0, commit: () => void messages.push(...added) }),
    fields: () => ({ prompt_ids: [], response_ids: [], response_mask: [], response_logprobs: [] }),
  };
}
