// One SFT sample from a verl parquet row, as verl's SFTDataset (single-turn:
// prompt and response columns, optionally followed through struct keys) and
// MultiTurnSFTDataset (a messages column) read it.
import { AppError, ErrorCode } from '@rl/service-kit/core';
import type { ChatMessage } from '@rl/policy';
import type { JsonValue, RowOrigin } from '../dataset-row.ts';

/** A conversation and which assistant turns the loss covers. */
export interface SftExample {
  /** Position in the concatenated files: a stable id for messages. */
  row_id: number;
  messages: ChatMessage[];
  /** "last": only the final assistant turn (single-turn SFT); "all": every assistant turn (multi-turn). */
  lossOn: 'last' | 'all';
}

/** Which columns hold the sample (`data.prompt_key`, `data.multiturn.*`, ...). */
export interface SftColumns {
  promptKey: string;
  responseKey: string;
  promptDictKeys: readonly string[];
  responseDictKeys: readonly string[];
  /** Set for multi-turn data: the messages column. */
  messagesKey: string | null;
}

const ROLES: ReadonlySet<string> = new Set(['system', 'user', 'assistant', 'tool']);

function bad(origin: RowOrigin, field: string, why: string): AppError {
  return new AppError(ErrorCode.BadRequest, `${origin.path} row ${origin.row}: ${field} ${why}`, { details: { path: origin.path, row: origin.row, field } });
}

// verl series_to_item + `[key]` per dict key: follows struct members.
function follow(
  row: { [key: string]: JsonValue },
  column: string,
  keys: readonly string[],
  origin: RowOrigin,
): { value: JsonValue | undefined; field: string } {
  let value: JsonValue | undefined = row[column];
  let field = column;
  for (const key of keys) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw bad(origin, field, `must be a struct with key "${key}"`);
    value = value[key];
    field = `${field}.${key}`;
  }
  return { value, field };
}

function toMessages(value: JsonValue | undefined, field: string, origin: RowOrigin): ChatMessage[] {
  if (!Array.isArray(value) || value.length === 0) throw bad(origin, field, 'must be a non-empty list of {role, content} messages');
  return value.map((m, i) => {
    if (m === null || typeof m !== 'object' || Array.isArray(m) || typeof m['role'] !== 'string' || typeof m['content'] !== 'string') {
      throw bad(origin, `${field}[${i}]`, 'must be a {role, content} message with string fields');
    }
    if (!ROLES.has(m['role'])) throw bad(origin, `${field}[${i}].role`, `must be one of ${[...ROLES].join(', ')}, got ${JSON.stringify(m['role'])}`);
    return { role: m['role'] as ChatMessage['role'], content: m['content'] };
  });
}

/** Reads one row. A prompt may be a string (verl) or a list of messages (ours: the RL `prompt` column as is). */
export function toSftExample(row: { [key: string]: JsonValue }, origin: RowOrigin, columns: SftColumns): SftExample {
  if (columns.messagesKey !== null) {
    const messages = toMessages(row[columns.messagesKey], columns.messagesKey, origin);
    if (!messages.some((m) => m.role === 'assistant')) throw bad(origin, columns.messagesKey, 'has no assistant message to learn from');
    return { row_id: origin.rowId, messages, lossOn: 'all' };
  }
  const prompt = follow(row, columns.promptKey, columns.promptDictKeys, origin);
  const response = follow(row, columns.responseKey, columns.responseDictKeys, origin);
  if (typeof response.value !== 'string') throw bad(origin, response.field, 'must be a string (set data.response_key / data.response_dict_keys)');
  const promptMessages = typeof prompt.value === 'string' ? [{ role: 'user' as const, content: prompt.value }] : toMessages(prompt.value, prompt.field, origin);
  return { row_id: origin.rowId, messages: [...promptMessages, { role: 'assistant', content: response.value }], lossOn: 'last' };
}
