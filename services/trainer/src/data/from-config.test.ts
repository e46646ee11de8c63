import { describe, expect, it } from 'vitest';
import { parseRlJobConfig } from '../config/index.ts';
import { samplerOptions, trainDatasetOptions, valDatasetOptions } from './from-config.ts';

describe('data options from the job config', () => {
  const config = parseRlJobConfig(
    'data: {train_files: [a.parquet, b.parquet], val_files: v.parquet, mix_weights: [2, 1], train_batch_size: 8, seed: 3, ' +
      'default_data_source: arithmetic_sequence, filter_overlong_prompts: true, max_prompt_length: 20, val_max_samples: 50}',
  );
  const count = (p: unknown) => String(p).length;

  it('maps data.* to loader and sampler options', () => {
    expect(trainDatasetOptions(config.data, count)).toMatchObject({
      files: ['a.parquet', 'b.parquet'],
      promptKey: 'prompt',
      defaultDataSource: 'arithmetic_sequence',
      maxSamples: -1,
      seed: 3,
      filter: { maxPromptLength: 20, countTokens: count },
    });
    expect(valDatasetOptions(config.data, count)).toMatchObject({ files: ['v.parquet'], maxSamples: 50 });
    expect(samplerOptions(config.data)).toEqual({ batchSize: 8, shuffle: true, seed: 3, mixWeights: [2, 1] });
  });

  it('insists on a token counter when filtering is on', () => {
    expect(() => trainDatasetOptions(config.data)).toThrow(/filter_overlong_prompts is on but no token counter/);
  });
});
