import { describe, expect, it } from 'vitest';
import type { DatasetRow } from './dataset-row.ts';
import { checkPromptLengths } from './check-prompt-lengths.ts';
import type { Dataset } from './dataset.ts';

const row = (id: number, prompt: string): DatasetRow => ({
  row_id: id,
  file_index: 0,
  data_source: 'd',
  prompt,
  prompt_without_context: null,
  ability: null,
  ground_truth: null,
  reward_model: null,
  extra_info: {},
  agent_name: null,
  tools_kwargs: {},
  interaction_kwargs: {},
  index: 0,
});

describe('checkPromptLengths (verl truncation "error")', () => {
  const dataset: Dataset = {
    rows: [row(0, 'abc'), row(1, 'abcd'), row(2, 'ab'), row(3, 'abcdefgh')],
    fileSizes: [2, 2],
    files: [
      { path: 'a.parquet', rows: 2, kept: 2 },
      { path: 'b.parquet', rows: 2, kept: 2 },
    ],
    filteredOverlong: 0,
  };
  const count = (p: unknown) => String(p).length;

  it('passes when every prompt fits', () => {
    expect(() => checkPromptLengths(dataset, count, 8)).not.toThrow();
  });

  it('names the file and the row inside it of the first prompt that does not', () => {
    expect(() => checkPromptLengths(dataset, count, 5)).toThrow('b.parquet row 1: the prompt is 8 tokens, more than data.max_prompt_length (5)');
    expect(() => checkPromptLengths(dataset, count, 3)).toThrow('a.parquet row 1: the prompt is 4 tokens');
  });
});
