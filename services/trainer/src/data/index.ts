export { toDatasetRow, toJsonValue, type DatasetRow, type JsonValue, type Prompt, type RowOptions, type RowOrigin } from './dataset-row.ts';
export { loadDataset, type CountTokens, type Dataset, type FileReport, type LoadDatasetOptions } from './load-dataset.ts';
export { epochOrder, type EpochOrderOptions } from './epoch-order.ts';
export {
  createBatchSampler,
  SamplerState,
  validationBatches,
  type BatchSampler,
  type BatchSamplerOptions,
  type SampledBatch,
  type SampledData,
} from './batch-sampler.ts';
export { samplerOptions, trainDatasetOptions, valDatasetOptions } from './from-config.ts';
export { loadSftDataset, type LoadSftOptions, type SftDataset } from './sft/load-sft-dataset.ts';
export { toSftExample, type SftColumns, type SftExample } from './sft/sft-example.ts';
export { tokenizeSft, type SftSequence, type Truncation } from './sft/sft-tokenize.ts';
export { checkPromptLengths } from './check-prompt-lengths.ts';
export { checkSignalRows } from './check-signal-rows.ts';
