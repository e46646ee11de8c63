import type { ChatMessage } from '../policy-types.ts';
import { allParsed, callOf, parseHermesToolCalls, type MalformedCall, type ParsedCall } from './hermes-parser.ts';

/** A model turn as a message, and the tool calls it made. */
export interface AssistantTurn {
  /** The assistant message: with `tool_calls` when every call parsed, else the whole text as content. */
  message: ChatMessage;
  /** Every `<tool_call>` block, parsed or malformed, in order; empty when no tools were offered. */
  calls: Array<ParsedCall | MalformedCall>;
}

/** Id of call `k` of assistant turn `turn` (1-based): deterministic, so trajectories repeat exactly. */
const toolCallId = (turn: number, k: number) => `call_${turn}_${k}`;

function withCalls(content: string, calls: ParsedCall[], ids: ReadonlyArray<string | undefined>, turn: number): ChatMessage {
  return {
    role: 'assistant',
    content,
    tool_calls: calls.map((c, k) => ({ id: ids[k] ?? toolCallId(turn, k), type: 'function', function: { name: c.name, arguments: c.arguments } })),
  };
}

/**
 * The model's text as an assistant message. With tools offered, Hermes tool
 * calls become the message's `tool_calls` (what the chat template renders back
 * as `<tool_call>` blocks) and its content is the text before them, as vLLM's
 * `hermes` parser returns them.
 */
export function assistantTurn(text: string, toolsOffered: boolean, turn: number): AssistantTurn {
  if (!toolsOffered) return { message: { role: 'assistant', content: text }, calls: [] };
  const { content, calls } = parseHermesToolCalls(text);
  if (!allParsed(calls)) return { message: { role: 'assistant', content: text }, calls };
  return { message: withCalls(content, calls, [], turn), calls };
}

/** A server's own parsed `tool_calls` (OpenAI chat completions: `arguments` is JSON text) as an assistant turn. */
export function assistantTurnOfCalls(
  content: string,
  toolCalls: ReadonlyArray<{ id?: string | undefined; function: { name: string; arguments: string } }>,
  turn: number,
): AssistantTurn {
  const calls = toolCalls.map((c) => {
    const raw = c.function.arguments;
    let args: unknown;
    try {
      args = raw.trim() === '' ? {} : JSON.parse(raw);
    } catch {
      return { ok: false as const, raw, reason: `arguments of ${c.function.name} are not valid JSON` };
    }
    return callOf({ name: c.function.name, arguments: args }, raw);
  });
  if (!allParsed(calls)) return { message: { role: 'assistant', content }, calls };
  return {
    message: withCalls(
      content,
      calls,
      toolCalls.map((c) => c.id),
      turn,
    ),
    calls,
  };
}
