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
  /** The text with the tool-call blocks removed. */
  content: string;
  calls: Array<ParsedCall | MalformedCall>;
}

const START = '<tool_call>';
const END = '</tool_call>';
const BLOCK = /<tool_call>([\s\S]*?)<\/tool_call>/g;
/** Longest block parsed; a longer one is malformed rather than a JSON.parse of megabytes. */
const MAX_BLOCK_CHARS = 64 * 1024;

/**
 * Hermes-format tool calls, as verl's `HermesToolParser.extract_tool_calls`:
 * nothing unless both tags occur; each non-greedy `<tool_call>...</tool_call>`
 * block must be a JSON object with a string `name` and an `arguments` value.
 * verl drops blocks that fail to parse; here they come back as malformed calls
 * so the loop can tell the model what was wrong. `arguments` must be an object
 * (verl's tools call `parameters.get`, which fails on anything else).
 */
export function parseHermesToolCalls(text: string): ParsedToolCalls {
  if (!text.includes(START) || !text.includes(END)) return { content: text, calls: [] };
  const calls: ParsedToolCalls['calls'] = [];
  for (const m of text.matchAll(BLOCK)) calls.push(parseBlock(m[1] ?? ''));
  return { content: text.replace(BLOCK, ''), calls };
}

function parseBlock(raw: string): ParsedCall | MalformedCall {
  if (raw.length > MAX_BLOCK_CHARS) return { ok: false, raw: raw.slice(0, 200), reason: `tool call longer than ${MAX_BLOCK_CHARS} characters` };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    return { ok: false, raw, reason: `tool call is not valid JSON (${err instanceof Error ? err.message : String(err)})` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { ok: false, raw, reason: 'tool call must be a JSON object with "name" and "arguments"' };
  const { name, arguments: args } = value as Record<string, unknown>;
  if (typeof name !== 'string') return { ok: false, raw, reason: 'tool call needs a string "name"' };
  if (args === undefined) return { ok: false, raw, reason: `tool call to ${name} needs "arguments"` };
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return { ok: false, raw, reason: `arguments of ${name} must be a JSON object` };
  return { ok: true, name, arguments: args as Record<string, unknown> };
}
