import { AppError, ErrorCode, mixSeed } from '@rl/service-kit';
import type { ChatMessage, SamplingParams, ToolSchema } from '../core/policy-types.ts';
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

/** A tool call's JSON `arguments` as the object chat templates expect (vLLM parses them the same way; empty is `{}`). */
function argumentsOf(text: string, field: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError(ErrorCode.ValidationFailed, `invalid body: ${field}: not valid JSON`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new AppError(ErrorCode.ValidationFailed, `invalid body: ${field}: must be a JSON object`);
  return value as Record<string, unknown>;
}

/**
 * OpenAI messages as template messages: `developer` is a system turn, an
 * assistant's `tool_calls` keep their ids with `arguments` decoded to objects
 * (as vLLM hands them to the template), a tool answer keeps its `tool_call_id`.
 */
export function toChatMessages(messages: readonly OpenAiMessage[]): ChatMessage[] {
  return messages.map((m, i) => {
    const content = contentText(m.content, `messages[${i}]`);
    const out: ChatMessage = { role: m.role === 'developer' ? 'system' : m.role, content };
    if (m.role === 'assistant' && m.tool_calls !== undefined && m.tool_calls !== null && m.tool_calls.length > 0) {
      out.tool_calls = m.tool_calls.map((c, k) => ({
        ...(c.id !== undefined ? { id: c.id } : {}),
        type: 'function',
        function: { name: c.function.name, arguments: argumentsOf(c.function.arguments, `messages[${i}].tool_calls[${k}].function.arguments`) },
      }));
    }
    if (m.role === 'tool' && typeof m.tool_call_id === 'string') out.tool_call_id = m.tool_call_id;
    if (typeof m.name === 'string') out.name = m.name;
    return out;
  });
}

/** The request's tools as the chat template gets them (as sent), unless `tool_choice` is `none`. */
export function toToolSchemas(req: Pick<ChatCompletionRequest, 'tools' | 'tool_choice'>): ToolSchema[] | undefined {
  if (req.tools === undefined || req.tools === null || req.tools.length === 0 || req.tool_choice === 'none') return undefined;
  return req.tools.map((t) => ({ ...t, type: 'function', function: { ...t.function } }));
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
