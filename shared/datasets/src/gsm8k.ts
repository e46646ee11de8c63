import { AppError, ErrorCode } from '@rl/service-kit/core';
import { fieldsOf, scalar, structOf, type Field } from './data-type.ts';
import type { RecordConverter } from './convert-run.ts';
import { describeValue } from './data-value.ts';
import { MESSAGE_LIST, REWARD_MODEL, type Message } from './verl-fields.ts';

/** Output layouts: verl's `gsm8k.py` (plain) and `gsm8k_tool_agent_loop.py` (tool-agent). */
export const Gsm8kFormat = { Plain: 'plain', ToolAgent: 'tool-agent' } as const;
/** One of {@link Gsm8kFormat}. */
export type Gsm8kFormat = (typeof Gsm8kFormat)[keyof typeof Gsm8kFormat];

/** The `data_source` verl's GSM8K scripts write. */
export const GSM8K_DATA_SOURCE = 'openai/gsm8k';

// verl gsm8k.py `instruction_following` (double quotes) and the tool-agent script's (backticks).
const INSTRUCTION = {
  plain: 'Let\'s think step by step and output the final answer after "####".',
  'tool-agent': "Let's think step by step and output the final answer after `####`.",
} as const satisfies Record<Gsm8kFormat, string>;

// verl gsm8k_tool_agent_loop.py system message.
const TOOL_AGENT_SYSTEM =
  'You are a math expert. You are given a question and you need to solve it step by step. ' +
  'Reasoning step by step before any tool call. ' +
  'You should use the `calc_gsm8k_reward` tool after step by step solving the question, ' +
  'before generate final answer at least once and refine your answer if necessary. ' +
  'Put your final answer in the format of `#### <answer>`.';

/** A raw GSM8K record as the dataset ships it. */
export interface Gsm8kRaw {
  question: string;
  answer: string;
}

/** A verl GSM8K row (the tool-agent members are present only in that format). */
export interface Gsm8kRow {
  data_source: string;
  agent_name?: string;
  prompt: Message[];
  ability: 'math';
  reward_model: { ground_truth: string; style: 'rule' };
  extra_info: {
    answer: string;
    index: number;
    interaction_kwargs?: { ground_truth: string; query: string };
    need_tools_kwargs?: boolean;
    question: string;
    split: string;
    tools_kwargs?: { calc_gsm8k_reward: { create_kwargs: { ground_truth: string } } };
  };
}

/**
 * verl `extract_solution`: the number after the first `#### `, commas removed;
 * undefined where verl's assert would fail.
 */
export function extractGsm8kSolution(answer: string): string | undefined {
  const m = /#### (-?[0-9.,]+)/.exec(answer);
  return m?.[1]?.replaceAll(',', '');
}

/** Validates a raw record; errors name the record (`label`) and the field. */
export function parseGsm8kRecord(raw: unknown, label: string): Gsm8kRaw & { solution: string } {
  const fail = (field: string, message: string) =>
    new AppError(ErrorCode.ValidationFailed, `${label}: ${field === '' ? '' : `${field}: `}${message}`, { details: { field } });
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw fail('', `expected an object, got ${describeValue(raw)}`);
  const { question, answer } = raw as Record<string, unknown>;
  if (typeof question !== 'string') throw fail('question', `expected a string, got ${describeValue(question)}`);
  if (typeof answer !== 'string') throw fail('answer', `expected a string, got ${describeValue(answer)}`);
  const solution = extractGsm8kSolution(answer);
  if (solution === undefined) throw fail('answer', 'no final answer after "#### "');
  return { question, answer, solution };
}

/**
 * The verl row for one record; `index` is its position in the raw split, as verl's `with_indices`.
 * `instruction` replaces verl's instruction_following sentence ('' leaves the question alone).
 */
export function gsm8kRow(
  raw: Gsm8kRaw & { solution: string },
  index: number,
  split: string,
  format: Gsm8kFormat,
  instruction: string = INSTRUCTION[format],
): Gsm8kRow {
  const query = instruction === '' ? raw.question : `${raw.question} ${instruction}`;
  const base = { answer: raw.answer, index, question: raw.question, split };
  const reward_model = { ground_truth: raw.solution, style: 'rule' } as const;
  if (format === Gsm8kFormat.Plain) {
    return { data_source: GSM8K_DATA_SOURCE, prompt: [{ role: 'user', content: query }], ability: 'math', reward_model, extra_info: base };
  }
  return {
    data_source: GSM8K_DATA_SOURCE,
    agent_name: 'tool_agent',
    prompt: [
      { role: 'system', content: TOOL_AGENT_SYSTEM },
      { role: 'user', content: query },
    ],
    ability: 'math',
    reward_model,
    extra_info: {
      ...base,
      interaction_kwargs: { ground_truth: raw.solution, query },
      need_tools_kwargs: true,
      tools_kwargs: { calc_gsm8k_reward: { create_kwargs: { ground_truth: raw.solution } } },
    },
  };
}

const S = scalar('string');

/** Columns of each format, in the order and nesting of verl's own files. */
export function gsm8kFields(format: Gsm8kFormat): Field[] {
  if (format === Gsm8kFormat.Plain) {
    return fieldsOf({
      data_source: S,
      prompt: MESSAGE_LIST,
      ability: S,
      reward_model: REWARD_MODEL,
      extra_info: structOf({ answer: S, index: scalar('int64'), question: S, split: S }),
    });
  }
  return fieldsOf({
    data_source: S,
    agent_name: S,
    prompt: MESSAGE_LIST,
    ability: S,
    reward_model: REWARD_MODEL,
    extra_info: structOf({
      answer: S,
      index: scalar('int64'),
      interaction_kwargs: structOf({ ground_truth: S, query: S }),
      need_tools_kwargs: scalar('bool'),
      question: S,
      split: S,
      tools_kwargs: structOf({ calc_gsm8k_reward: structOf({ create_kwargs: structOf({ ground_truth: S }) }) }),
    }),
  });
}

/** Converts raw GSM8K records of one split; `index` is the record's position in the input, as verl's `with_indices`. */
export function createGsm8kConverter(split: string, format: Gsm8kFormat): RecordConverter<Gsm8kRow> {
  return { convert: (value, label, recordIndex) => [gsm8kRow(parseGsm8kRecord(value, label), recordIndex, split, format)] };
}
