import { AppError, ErrorCode } from '@rl/service-kit/core';
import type { DataConfig } from '../config/data-config.ts';
import type { BatchSamplerOptions } from './batch-sampler.ts';
import type { CountTokens, LoadDatasetOptions } from './load-dataset.ts';

function common(data: DataConfig, countTokens: CountTokens | undefined): Pick<LoadDatasetOptions, 'promptKey' | 'defaultDataSource' | 'filter'> {
  if (data.filter_overlong_prompts && countTokens === undefined) {
    throw new AppError(ErrorCode.InvalidParams, 'data.filter_overlong_prompts is on but no token counter was given');
  }
  return {
    promptKey: data.prompt_key,
    defaultDataSource: data.default_data_source,
    ...(data.filter_overlong_prompts && countTokens !== undefined ? { filter: { maxPromptLength: data.max_prompt_length, countTokens } } : {}),
  };
}

/** {@link loadDataset} options for `data.train_files`; `countTokens` is needed when `filter_overlong_prompts` is on. */
export function trainDatasetOptions(data: DataConfig, countTokens?: CountTokens): LoadDatasetOptions {
  return {
    files: data.train_files,
    ...common(data, countTokens),
    maxSamples: data.train_max_samples,
    sampleRandomly: data.shuffle,
    seed: data.seed,
  };
}

/** {@link loadDataset} options for `data.val_files` (verl shares `data.shuffle`/`seed` for the capped subset; batches stay in order). */
export function valDatasetOptions(data: DataConfig, countTokens?: CountTokens): LoadDatasetOptions {
  return { files: data.val_files, ...common(data, countTokens), maxSamples: data.val_max_samples, sampleRandomly: data.shuffle, seed: data.seed };
}

/** {@link createBatchSampler} options from `data.*`. */
export function samplerOptions(data: DataConfig): BatchSamplerOptions {
  return { batchSize: data.train_batch_size, shuffle: data.shuffle, seed: data.seed, mixWeights: data.mix_weights };
}
