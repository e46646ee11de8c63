import { AppError, ErrorCode, setOwn } from '@rl/service-kit/core';
import type { DataRow, DataValue, Message } from '@rl/datasets';

/** A prompt as verl files carry it: chat messages, or plain text (verl's digit-completion files). */
export type Prompt = string | Message[];

/** A JSON-safe value (parquet bigints, bytes and dates converted). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** One training or validation example, with verl's non-tensor fields. */
export interface DatasetRow {
  /** Position in the concatenated files before sampling and filtering: a stable id for logs and checkpoints. */
  row_id: number;
  /** Which of the configured files the row came from. */
  file_index: number;
  data_source: string;
  prompt: Prompt;
  /** The prompt without the context r (the story converter's `prompt_without_context`), for the story reward's signals; null when the row has none. */
  prompt_without_context: Prompt | null;
  ability: string | null;
  /** `reward_model.ground_truth`, or the prompt itself when a file has no `reward_model` and a text prompt. */
  ground_truth: JsonValue;
  reward_model: { [key: string]: JsonValue } | null;
  extra_info: { [key: string]: JsonValue };
  agent_name: string | null;
  /** verl RLHFDataset: `extra_info.tools_kwargs`, else {}. */
  tools_kwargs: { [key: string]: JsonValue };
  /** verl RLHFDataset: `extra_info.interaction_kwargs`, else {}. */
  interaction_kwargs: { [key: string]: JsonValue };
  /** verl RLHFDataset: `extra_info.index`, else 0. */
  index: JsonValue;
}

/** Where a raw row came from, for messages and ids. */
export interface RowOrigin {
  path: string;
  fileIndex: number;
  /** Row number inside its file. */
  row: number;
  /** Position in the concatenation of all files. */
  rowId: number;
}

/** How raw rows become {@link DatasetRow}s. */
export interface RowOptions {
  promptKey: string;
  /** data_source for rows without one; null makes such rows an error. */
  defaultDataSource: string | null;
  /** Column of the prompt without the context r (data.prompt_without_context_key). @default "prompt_without_context" */
  withoutContextKey?: string;
}

const utf8 = new TextDecoder();

/** Parquet value → JSON-safe value: bigints beyond 2^53 become strings, bytes become UTF-8 text, dates ISO strings. */
export function toJsonValue(value: DataValue): JsonValue {
  if (value === null || typeof value === 'boolean' || typeof value === 'number' || typeof value === 'string') return value;
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Uint8Array) return utf8.decode(value);
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(toJsonValue);
  const out: { [key: string]: JsonValue } = {};
  for (const [k, v] of Object.entries(value)) setOwn(out, k, toJsonValue(v));
  return out;
}

const isObject = (v: JsonValue | undefined): v is { [key: string]: JsonValue } => v !== null && typeof v === 'object' && !Array.isArray(v);

function bad(origin: RowOrigin, field: string, why: string): AppError {
  return new AppError(ErrorCode.BadRequest, `${origin.path} row ${origin.row}: ${field} ${why}`, {
    details: { path: origin.path, row: origin.row, field },
  });
}

function toPrompt(value: JsonValue | undefined, origin: RowOrigin, key: string): Prompt {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.length > 0) {
    return value.map((m, i) => {
      if (!isObject(m) || typeof m['role'] !== 'string' || typeof m['content'] !== 'string') {
        throw bad(origin, `${key}[${i}]`, 'must be a {role, content} message with string fields');
      }
      return { role: m['role'], content: m['content'] };
    });
  }
  throw bad(origin, key, 'must be a string or a non-empty list of {role, content} messages');
}

const KNOWN_COLUMNS = new Set(['prompt', 'data_source', 'reward_model', 'extra_info', 'ability', 'agent_name']);

const stringOrNull = (v: JsonValue | undefined): string | null => (typeof v === 'string' ? v : null);

/** Normalises one raw parquet row the way verl's RLHFDataset reads it. */
export function toDatasetRow(raw: DataRow, origin: RowOrigin, options: RowOptions): DatasetRow {
  const row = toJsonValue(raw) as { [key: string]: JsonValue };
  const prompt = toPrompt(row[options.promptKey], origin, options.promptKey);
  const withoutKey = options.withoutContextKey ?? 'prompt_without_context';
  const without = row[withoutKey];
  const promptWithoutContext = without === undefined || without === null ? null : toPrompt(without, origin, withoutKey);
  const dataSource = typeof row['data_source'] === 'string' && row['data_source'] !== '' ? row['data_source'] : options.defaultDataSource;
  if (dataSource === null) throw bad(origin, 'data_source', 'is missing; set data.default_data_source for files without it');
  const rewardModel = isObject(row['reward_model']) ? row['reward_model'] : null;
  const extraInfo: { [key: string]: JsonValue } = { ...(isObject(row['extra_info']) ? row['extra_info'] : {}) };
  // Columns verl's dataset does not interpret (e.g. the story converter's system_prompt,
  // story_content, user_input, conversation_history, output_format, target_response)
  // travel to the reward service inside extra_info, without overriding its own keys.
  for (const [key, value] of Object.entries(row)) {
    if (!KNOWN_COLUMNS.has(key) && key !== options.promptKey && key !== withoutKey && !Object.hasOwn(extraInfo, key)) setOwn(extraInfo, key, value);
  }
  const groundTruth = rewardModel?.['ground_truth'] ?? (typeof prompt === 'string' ? prompt : null);
  return {
    row_id: origin.rowId,
    file_index: origin.fileIndex,
    data_source: dataSource,
    prompt,
    prompt_without_context: promptWithoutContext,
    ability: stringOrNull(row['ability']),
    ground_truth: groundTruth,
    reward_model: rewardModel,
    extra_info: extraInfo,
    agent_name: stringOrNull(row['agent_name']),
    tools_kwargs: isObject(extraInfo['tools_kwargs']) ? extraInfo['tools_kwargs'] : {},
    interaction_kwargs: isObject(extraInfo['interaction_kwargs']) ? extraInfo['interaction_kwargs'] : {},
    index: extraInfo['index'] ?? 0,
  };
}
