import type { TextSession } from '../backend.ts';
import type { ChatMessage } from '../policy-types.ts';
import type { ToolSchema } from '../tools/tool.ts';
import type { Conversation } from './conversation.ts';

/**
 * A conversation over a chat-completions-only backend: messages only, no token
 * fields. The response budget counts the server's completion tokens; environment
 * messages are not counted (their token length is unknown here).
 */
export function startTextConversation(session: TextSession, initial: readonly ChatMessage[], tools: readonly ToolSchema[] | undefined): Conversation {
  const messages: ChatMessage[] = [...initial];
  let modelTokens = 0;
  return {
    tokenLevel: false,
    modelVersion: session.modelVersion,
    messages,
    promptLength: () => 0,
    responseLength: () => modelTokens,
    sequenceRoom: () => Number.POSITIVE_INFINITY,
    async generate(params, signal) {
      const r = await session.chat(messages, tools, params, signal);
      modelTokens += r.completionTokens;
      messages.push({ role: 'assistant', content: r.text });
      return { text: r.text, rawText: r.text, finishReason: r.finishReason, tokenCount: r.completionTokens };
    },
    renderEnv: async (added) => ({ tokenCount: 0, commit: () => void messages.push(...added) }),
    fields: () => ({ prompt_ids: [], response_ids: [], response_mask: [], response_logprobs: [] }),
  };
}
