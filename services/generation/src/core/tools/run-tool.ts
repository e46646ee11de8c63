import { AppError, getOwn } from '@rl/service-kit/core';
import type { MalformedCall, ParsedCall } from '../agent/hermes-parser.ts';
import type { Tool } from './tool.ts';

/** Why a tool call did not produce a normal answer. */
export const ToolFailure = { Malformed: 'malformed', UnknownTool: 'unknown_tool', Timeout: 'timeout', Failed: 'failed' } as const;
/** Union of tool failure kinds. */
export type ToolFailure = (typeof ToolFailure)[keyof typeof ToolFailure];

/** One tool call as the trajectory records it. */
export interface ToolCallRecord {
  /** Assistant turn (1-based) that made the call. */
  turn: number;
  name: string | null;
  arguments: Record<string, unknown> | null;
  /** Absent when the call succeeded. */
  error?: ToolFailure;
  /** The step reward (verl's `tool_reward`); null where the tool gives none. */
  reward: number | null;
}

/** What running one call produced: the text for the model and the record. */
export interface ToolCallOutcome {
  text: string;
  record: ToolCallRecord;
}

/** What {@link runToolCall} needs. */
export interface ToolRunContext {
  tools: ReadonlyMap<string, Tool>;
  /** The sample's `tools_kwargs` (`{<tool>: {create_kwargs: {...}}}`). */
  toolsKwargs: Record<string, unknown>;
  turn: number;
  /** A signal that aborts after `ms` (injected so tests control time). */
  deadline(ms: number): AbortSignal;
  /** The rollout's own cancellation. */
  signal: AbortSignal;
}

// verl's ToolAgentLoop._call_tool answers every failure with this prefix.
const errorText = (detail: string) => `Error when executing tool: ${detail}`;

function createKwargsOf(toolsKwargs: Record<string, unknown>, name: string): Record<string, unknown> {
  // `name` is the model's: a tool called `constructor` must not read Object.
  const entry = getOwn(toolsKwargs, name);
  const ck = entry !== null && typeof entry === 'object' ? (entry as Record<string, unknown>).create_kwargs : undefined;
  return ck !== null && typeof ck === 'object' && !Array.isArray(ck) ? (ck as Record<string, unknown>) : {};
}

/**
 * Runs one parsed call: malformed calls, unknown tools, failures and timeouts
 * all become an error message to the model (reward 0.0, as verl's `_call_tool`
 * returns on an exception), never an exception. Only the rollout's own
 * cancellation propagates.
 */
export async function runToolCall(call: ParsedCall | MalformedCall, ctx: ToolRunContext): Promise<ToolCallOutcome> {
  if (!call.ok) {
    return { text: errorText(call.reason), record: { turn: ctx.turn, name: null, arguments: null, error: ToolFailure.Malformed, reward: 0 } };
  }
  const base = { turn: ctx.turn, name: call.name, arguments: call.arguments };
  const tool = ctx.tools.get(call.name);
  if (tool === undefined) {
    const known = [...ctx.tools.keys()].join(', ') || 'none';
    return { text: errorText(`unknown tool '${call.name}' (available: ${known})`), record: { ...base, error: ToolFailure.UnknownTool, reward: 0 } };
  }
  const deadline = ctx.deadline(tool.timeoutMs);
  const signal = AbortSignal.any([deadline, ctx.signal]);
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => {});
  try {
    const out = await Promise.race([tool.execute(call.arguments, { createKwargs: createKwargsOf(ctx.toolsKwargs, call.name), signal }), aborted]);
    return { text: out.text, record: out.failed === true ? { ...base, error: ToolFailure.Failed, reward: out.reward } : { ...base, reward: out.reward } };
  } catch (err) {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    if (deadline.aborted) {
      return { text: errorText(`${call.name} timed out after ${tool.timeoutMs} ms`), record: { ...base, error: ToolFailure.Timeout, reward: 0 } };
    }
    const detail = err instanceof AppError ? err.message : 'internal error';
    return { text: errorText(detail), record: { ...base, error: ToolFailure.Failed, reward: 0 } };
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** Where {@link truncateToolText} keeps text (verl's `tool_response_truncate_side`). */
export type TruncateSide = 'left' | 'middle' | 'right';

/**
 * verl's tool-response truncation, in code points like Python's `len`: `left`
 * keeps the start, `right` the end, `middle` both halves around a marker.
 */
export function truncateToolText(text: string, max: number, side: TruncateSide): string {
  const cps = Array.from(text);
  if (cps.length <= max) return text;
  if (side === 'left') return `${cps.slice(0, max).join('')}...(truncated)`;
  // Python's `text[-n:]` is the whole text when n is 0; verl's slices inherit that.
  const tail = (n: number) => (n === 0 ? text : cps.slice(cps.length - n).join(''));
  if (side === 'right') return `(truncated)...${tail(max)}`;
  const half = Math.floor(max / 2);
  return `${cps.slice(0, half).join('')}...(truncated)...${tail(half)}`;
}
