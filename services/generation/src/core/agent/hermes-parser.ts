/** A tool call the parser understood. */
export interface ParsedCall {
  ok: true;
  name: string;
  arguments: Record<string, unknown>;
}

/** A `<tool_call>` block that is not a valid call; the model is told why. */
export interface MalformedCall {
  ok: false;
  /** The block's text, for the trajectory record. */
  raw: string;
  reason: string;
}

/** Result of parsing one assistant message. */
export interface ParsedToolCalls {
  /** The text before the first `<tool_call>` (the whole text when there is none). */
  content: string;
  calls: Array<ParsedCall | MalformedCall>;
}

const START = '<tool_call>';
// vLLM's Hermes2ProToolParser regex: closed blocks, and an unclosed last block running to the end.
const BLOCK = /<tool_call>([\s\S]*?)<\/tool_call>|<tool_call>([\s\S]*)/g;
/** Longest block parsed; a longer one is malformed rather than a JSON.parse of megabytes. */
const MAX_BLOCK_CHARS = 64 * 1024;

/**
 * Hermes-format tool calls as Qwen's chat template asks for them and vLLM's
 * `hermes` parser reads them: nothing unless `<tool_call>` occurs; every
 * non-greedy `<tool_call>...</tool_call>` block, and an unclosed last block up
 * to the end of the text, must be a JSON object with a string `name` and an
 * object `arguments` (verl's tools read their parameters as an object); the
 * content is the text before the first block. Where vLLM gives up on the whole
 * message at the first bad block, each block comes back here, good or
 * malformed with a reason, so callers choose: the OpenAI endpoint keeps vLLM's
 * all-or-nothing, the tool agent tells the model what was wrong.
 */
export function parseHermesToolCalls(text: string): ParsedToolCalls {
  const first = text.indexOf(START);
  if (first < 0) return { content: text, calls: [] };
  const calls: ParsedToolCalls['calls'] = [];
  for (const m of text.matchAll(BLOCK)) calls.push(parseBlock(m[1] ?? m[2] ?? ''));
  return { content: text.slice(0, first), calls };
}

/** True when there are calls and every one parsed (vLLM's condition for `tool_calls` in a reply). */
export function allParsed(calls: ParsedToolCalls['calls']): calls is ParsedCall[] {
  return calls.length > 0 && calls.every((c) => c.ok);
}

function parseBlock(raw: string): ParsedCall | MalformedCall {
  if (raw.length > MAX_BLOCK_CHARS) return { ok: false, raw: raw.slice(0, 200), reason: `tool call longer than ${MAX_BLOCK_CHARS} characters` };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    return { ok: false, raw, reason: `tool call is not valid JSON (${err instanceof Error ? err.message : String(err)})` };
  }
  return callOf(value, raw);
}

/** A decoded call object (`{name, arguments}`) checked the way {@link parseHermesToolCalls} checks blocks. */
export function callOf(value: unknown, raw: string): ParsedCall | MalformedCall {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { ok: false, raw, reason: 'tool call must be a JSON object with "name" and "arguments"' };
  const { name, arguments: args } = value as Record<string, unknown>;
  if (typeof name !== 'string') return { ok: false, raw, reason: 'tool call needs a string "name"' };
  if (args === undefined) return { ok: false, raw, reason: `tool call to ${name} needs "arguments"` };
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return { ok: false, raw, reason: `arguments of ${name} must be a JSON object` };
  return { ok: true, name, arguments: args as Record<string, unknown> };
}
