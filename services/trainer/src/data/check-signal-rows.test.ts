import { describe, expect, it } from 'vitest';
import { checkSignalRows } from './check-signal-rows.ts';
import type { DatasetRow } from './dataset-row.ts';
import type { Dataset } from './dataset.ts';

const row = (id: number, dataSource: string, without: string | null): DatasetRow => ({
  row_id: id,
  file_index: 0,
  data_source: dataSource,
  prompt: 'p',
  prompt_without_context: without,
  ability: null,
  ground_truth: null,
  reward_model: null,
  extra_info: {},
  agent_name: null,
  tools_kwargs: {},
  interaction_kwargs: {},
  index: 0,
});

describe('checkSignalRows', () => {
  const dataset: Dataset = {
    rows: [row(0, 'story', 'q'), row(1, 'openai/gsm8k', null), row(2, 'story', 'q'), row(3, 'story', null)],
    fileSizes: [2, 2],
    files: [
      { path: 'a.parquet', rows: 2, kept: 2 },
      { path: 'b.parquet', rows: 2, kept: 2 },
    ],
    filteredOverlong: 0,
  };
  const story = (ds: string) => ds === 'story';

  it('names the file, the row inside it and the column of the first row whose reward needs signals and that has no prompt without r', () => {
    expect(() => checkSignalRows(dataset, story, 'prompt_without_context')).toThrow(
      'b.parquet row 1: no "prompt_without_context" (the prompt without the context r, which the story reward\'s signals need)',
    );
  });

  it('leaves rows whose reward takes no signals alone', () => {
    expect(() => checkSignalRows({ ...dataset, rows: dataset.rows.slice(0, 3) }, story, 'k')).not.toThrow();
    expect(() => checkSignalRows(dataset, () => false, 'k')).not.toThrow();
    expect(() => checkSignalRows(dataset, () => true, 'k')).toThrow('a.parquet row 1: no "k"');
  });
});
