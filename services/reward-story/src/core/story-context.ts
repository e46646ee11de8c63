import { AppError, ErrorCode, formatPath } from '@rl/service-kit/core';
import type { z } from 'zod';
import { OutputFormat, StoryContext, type StoryScoreItem, type StoryTurn } from './story-item.ts';

/** The context of one reply, from whichever place the item carried it. */
export interface ResolvedContext {
  story: string;
  history: StoryTurn[];
  userInput: string;
  /** The reference reply (`target_response`, else `ground_truth`); undefined when absent or blank. */
  reference: string | undefined;
  /** The format spec and the field it came from (for error messages). */
  outputFormat: { spec: OutputFormat; field: string } | undefined;
}

const REQUIRED_KEYS = ['story_content', 'conversation_history', 'user_input'] as const;
const CONTEXT_KEYS = [...REQUIRED_KEYS, 'target_response', 'output_format'] as const;

function invalid(field: string, message: string): AppError {
  return new AppError(ErrorCode.InvalidParams, `${field}: ${message}`, { details: { field } });
}

function fromZod(error: z.ZodError, prefix: string): AppError {
  const issue = error.issues[0];
  return invalid(issue === undefined || issue.path.length === 0 ? prefix : `${prefix}.${formatPath(issue.path)}`, issue?.message ?? 'invalid');
}

/** Picks the context keys out of `extra_info`, decoding a JSON-text history, and validates them with the `context` schema. */
function contextFromExtraInfo(extra: Record<string, unknown>): StoryContext {
  const picked: Record<string, unknown> = {};
  for (const key of CONTEXT_KEYS) {
    let v = extra[key];
    // Some trainers hand the history column over as JSON text.
    if (key === 'conversation_history' && typeof v === 'string') {
      try {
        v = JSON.parse(v);
      } catch {
        throw invalid(`extra_info.${key}`, 'a string here must be JSON text of the list of turns');
      }
    }
    if (v !== undefined) picked[key] = v;
  }
  const parsed = StoryContext.safeParse(picked);
  if (!parsed.success) throw fromZod(parsed.error, 'extra_info');
  return parsed.data;
}

/** True for a string with something besides whitespace. */
export function nonBlank(s: string | null | undefined): s is string {
  return typeof s === 'string' && s.trim() !== '';
}

/**
 * The checkable spec in an `output_format` value. A string is either JSON text
 * of a spec or, when it does not start with `{`, the prose instruction the story
 * converter puts in the system prompt ("Reply with ... plain prose"): nothing a
 * program can check, so there is no spec and `format` is skipped.
 */
function outputFormatSpec(value: StoryContext['output_format'], field: string): OutputFormat | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value !== 'string') return value;
  const text = value.trim();
  if (!text.startsWith('{')) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw invalid(field, 'starts with "{" but is not JSON: give a spec {"type": "regex" | "json_schema", ...} or prose');
  }
  const parsed = OutputFormat.safeParse(json);
  if (!parsed.success) throw fromZod(parsed.error, field);
  return parsed.data;
}

/**
 * The context of `item`: its `context` object when present (the only source
 * then), else the same keys inside `extra_info`, where the story converter's
 * columns end up when a trainer copies them. Throws `invalid_params` naming the
 * field when neither has them or a value has the wrong shape.
 */
export function resolveContext(item: StoryScoreItem): ResolvedContext {
  let ctx: StoryContext;
  let where: string;
  if (item.context !== undefined) {
    ctx = item.context;
    where = 'context';
  } else {
    const extra = item.extra_info ?? {};
    if (!REQUIRED_KEYS.some((k) => k in extra)) {
      throw invalid('context', 'missing: send `context` {story_content, conversation_history, user_input} or the same keys in `extra_info`');
    }
    ctx = contextFromExtraInfo(extra);
    where = 'extra_info';
  }
  const reference = nonBlank(ctx.target_response) ? ctx.target_response : nonBlank(item.ground_truth) ? item.ground_truth : undefined;
  const formatField = `${where}.output_format`;
  const format = outputFormatSpec(ctx.output_format, formatField);
  return {
    story: ctx.story_content,
    history: ctx.conversation_history,
    userInput: ctx.user_input,
    reference,
    outputFormat: format === undefined ? undefined : { spec: format, field: formatField },
  };
}

/**
 * The texts coherence compares with: the last `recentTurns` user or assistant
 * turns of the history (system turns and blank turns left out first).
 */
export function recentTurns(history: ReadonlyArray<StoryTurn>, recentTurns: number): string[] {
  const turns = history.filter((t) => t.role !== 'system' && nonBlank(t.content)).map((t) => t.content);
  return recentTurns <= 0 ? [] : turns.slice(-recentTurns);
}

/** Every non-blank earlier assistant reply, oldest first: what non_repetition compares with. */
export function earlierReplies(history: ReadonlyArray<StoryTurn>): string[] {
  return history.filter((t) => t.role === 'assistant' && nonBlank(t.content)).map((t) => t.content);
}
