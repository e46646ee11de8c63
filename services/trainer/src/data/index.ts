export { toDatasetRow, toJsonValue, type DatasetRow, type JsonValue, type Prompt, type RowOptions, type RowOrigin } from './dataset-row.ts';
export { loadDataset, type CountTokens, type Dataset, type FileReport, type LoadDatasetOptions } from './load-dataset.ts';
export { epochOrder, type EpochOrderOptions } from './epoch-order.ts';
export { createBatchSampler, SamplerState, validationBatches, type BatchSampler, type BatchSamplerOptions, type SampledBatch } from './batch-sampler.ts';
export { samplerOptions, trainDatasetOptions, valDatasetOptions } from './from-config.ts';
