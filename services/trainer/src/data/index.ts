export type { DatasetRow, JsonValue, Prompt } from './dataset-row.ts';
export { loadDataset, type CountTokens, type Dataset, type LoadDatasetOptions } from './load-dataset.ts';
export { createBatchSampler, SamplerState, type BatchSampler, type BatchSamplerOptions } from './batch-sampler.ts';
export { samplerOptions, trainDatasetOptions } from './from-config.ts';
export { loadSftDataset } from './sft/load-sft-dataset.ts';
export type { SftColumns } from './sft/sft-example.ts';
export type { Truncation } from './sft/sft-tokenize.ts';
export { checkPromptLengths } from './check-prompt-lengths.ts';
export { checkSignalRows } from './check-signal-rows.ts';
