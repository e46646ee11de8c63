import { AppError, ErrorCode, mixSeed } from '@rl/service-kit';
import type { ChatMessage, SamplingParams } from '../core/policy-types.ts';
import type { ToolSchema } from '../core/tools/tool.ts';
import type { ChatCompletionRequest, OpenAiMessage } from '../schemas/openai.ts';

/** Text of an OpenAI message's content: a string, or the text parts of an array. */
function contentText(content: OpenAiMessage['content'], field: string): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  return content
    .map((part, k) => {
      if (part.type !== 'text' || typeof part.text !== 'string') {
        throw new AppError(ErrorCode.ValidationFailed, `invalid body: ${field}.content[${k}]: only text parts are supported, got ${JSON.stringify(part.type)}`);
      }
      return part.text;
    })
    .join('');
}

/**
 * OpenAI messages as template messages: `developer` is a system turn, and an
 * assistant's `tool_calls` become the Hermes `<tool_call>` blocks the model
 * itself writes, so a conversation replays the way it was generated.
 */
export function toChatMessages(messages: readonly OpenAiMessage[]): ChatMessage[] {
  return messages.map((m, i) => {
    const text = contentText(m.content, `messages[${i}]`);
    if (m.role === 'developer') return { role: 'system', content: text };
    if (m.role === 'assistant' && m.tool_calls !== undefined && m.tool_calls !== null && m.tool_calls.length > 0) {
      const calls = m.tool_calls.map((c) => `<tool_call>\n{"name": ${JSON.stringify(c.function.name)}, "arguments": ${c.function.arguments}}\n</tool_call>`);
      return { role: 'assistant', content: [text, ...calls].filter((s) => s !== '').join('\n') };
    }
    return { role: m.role, content: text };
  });
}

/** The request's tools as schemas for the template, unless `tool_choice` is `none`. */
export function toToolSchemas(req: Pick<ChatCompletionRequest, 'tools' | 'tool_choice'>): ToolSchema[] | undefined {
  if (req.tools === undefined || req.tools === null || req.tools.length === 0 || req.tool_choice === 'none') return undefined;
  return req.tools.map((t) => ({
    type: 'function',
    function: {
      name: t.function.name,
      description: t.function.description ?? '',
      parameters: (t.function.parameters as ToolSchema['function']['parameters'] | undefined) ?? { type: 'object', properties: {}, required: [] },
    },
  }));
}

/** Fields shared by both request kinds. */
export interface SamplingFields {
  temperature?: number | null | undefined;
  top_p?: number | null | undefined;
  top_k?: number | null | undefined;
  stop?: string | string[] | null | undefined;
  stop_token_ids?: number[] | null | undefined;
  seed?: number | null | undefined;
}

/**
 * Sampling parameters of one choice. With a seed and several choices, choice k
 * gets a seed derived from it, so the n choices differ yet stay reproducible.
 */
export function samplingOf(req: SamplingFields, maxTokens: number, choice: number, choices: number): SamplingParams {
  const seed = req.seed === undefined || req.seed === null ? undefined : choices === 1 ? req.seed >>> 0 : mixSeed(req.seed >>> 0, choice);
  const stop = typeof req.stop === 'string' ? [req.stop] : (req.stop ?? undefined);
  return {
    temperature: req.temperature ?? 1,
    topP: req.top_p ?? 1,
    topK: req.top_k !== undefined && req.top_k !== null && req.top_k > 0 ? req.top_k : 0,
    maxTokens,
    ...(stop !== undefined && stop.length > 0 ? { stop } : {}),
    ...(req.stop_token_ids !== undefined && req.stop_token_ids !== null ? { stopTokenIds: req.stop_token_ids } : {}),
    ...(seed !== undefined ? { seed } : {}),
  };
}
