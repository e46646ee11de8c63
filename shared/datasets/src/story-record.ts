import { AppError, ErrorCode } from '@rl/service-kit/core';
import { describeValue } from './data-value.ts';

/** A chat role after alias resolution. */
export type StoryRole = 'user' | 'assistant';

/** One turn of a conversation. */
export interface StoryTurn {
  role: StoryRole;
  content: string;
}

/** `from` values accepted, with ShareGPT's `human`/`gpt` as aliases. */
const ROLE_ALIASES: Readonly<Record<string, StoryRole>> = { user: 'user', human: 'user', assistant: 'assistant', gpt: 'assistant' };

/** Things in a valid record that are worth counting (none of them skips the record). */
export interface StoryNotes {
  /** Turns whose text is empty or only whitespace; kept as they are. */
  emptyTurns: number;
  /** Turns folded into the previous turn of the same role. */
  mergedTurns: number;
  /** 1 when the conversation opens with an assistant turn (a greeting); kept as context, it makes no sample. */
  leadingAssistantTurns: number;
  /** 1 when a user turn follows the last assistant reply; it has no target, so no sample. */
  trailingUserTurns: number;
}

/** A raw story record after validation: `{system, conversations: [{from, value}], id?}`. */
export interface StoryRecord {
  storyContent: string;
  /** The record's own `id` (string or number) when it has one. */
  id: string | undefined;
  /** Turns with same-role runs merged, so roles alternate. */
  turns: StoryTurn[];
  notes: StoryNotes;
}

const invalid = (label: string, field: string, message: string) =>
  new AppError(ErrorCode.ValidationFailed, `${label}: ${field}: ${message}`, { details: { field } });

function parseTurn(raw: unknown, label: string, i: number): StoryTurn {
  const at = `conversations[${i}]`;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw invalid(label, at, `expected an object, got ${describeValue(raw)}`);
  const { from, value } = raw as Record<string, unknown>;
  if (typeof from !== 'string') throw invalid(label, `${at}.from`, `expected "user" or "assistant", got ${describeValue(from)}`);
  const role = ROLE_ALIASES[from];
  if (role === undefined) throw invalid(label, `${at}.from`, `expected "user" or "assistant" (or "human"/"gpt"), got ${JSON.stringify(from)}`);
  if (typeof value !== 'string') throw invalid(label, `${at}.value`, `expected a string, got ${describeValue(value)}`);
  return { role, content: value };
}

/**
 * Consecutive turns of one role become one turn joined with "\n" (empty parts
 * left out): the reply that follows answers all of them, and chat templates
 * that demand strict user/assistant alternation accept the result.
 */
function mergeRuns(turns: StoryTurn[]): { turns: StoryTurn[]; merged: number } {
  const out: StoryTurn[] = [];
  let merged = 0;
  for (const t of turns) {
    const last = out.at(-1);
    if (last?.role !== t.role) {
      out.push({ ...t });
      continue;
    }
    merged++;
    last.content = [last.content, t.content].filter((s) => s !== '').join('\n');
  }
  return { turns: out, merged };
}

/**
 * Validates one raw record. `label` names it in errors (`line 4`, `record 3`);
 * errors also name the field, e.g. `record 3: conversations[2].from: expected "user" or "assistant" (or "human"/"gpt"), got "bot"`.
 */
export function parseStoryRecord(raw: unknown, label: string): StoryRecord {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new AppError(ErrorCode.ValidationFailed, `${label}: expected an object, got ${describeValue(raw)}`, { details: { field: '' } });
  }
  const { system, conversations, id } = raw as Record<string, unknown>;
  if (typeof system !== 'string') throw invalid(label, 'system', `expected a string, got ${describeValue(system)}`);
  if (!Array.isArray(conversations)) throw invalid(label, 'conversations', `expected an array, got ${describeValue(conversations)}`);
  if (id !== undefined && id !== null && typeof id !== 'string' && typeof id !== 'number') {
    throw invalid(label, 'id', `expected a string or number, got ${describeValue(id)}`);
  }
  const parsed = conversations.map((t, i) => parseTurn(t, label, i));
  const { turns, merged } = mergeRuns(parsed);
  return {
    storyContent: system,
    id: id === undefined || id === null ? undefined : String(id),
    turns,
    notes: {
      emptyTurns: parsed.filter((t) => t.content.trim() === '').length,
      mergedTurns: merged,
      leadingAssistantTurns: turns[0]?.role === 'assistant' ? 1 : 0,
      trailingUserTurns: turns.at(-1)?.role === 'user' ? 1 : 0,
    },
  };
}
