import { z } from 'zod';
import { AppError, ErrorCode } from '@rl/service-kit/core';
import type { DatasetRow } from './dataset-row.ts';
import { epochOrder } from './epoch-order.ts';
import type { Dataset } from './dataset.ts';

/** Where the sampler is: the next batch starts at position `index` of epoch `epoch`'s order. JSON-safe for checkpoints. */
export const SamplerState = z.strictObject({
  epoch: z.int().min(0),
  index: z.int().min(0),
});
/** A resumable sampler position. */
export type SamplerState = z.infer<typeof SamplerState>;

/** Options of {@link createBatchSampler} (`data.train_batch_size`, `data.shuffle`, `data.seed`, `data.mix_weights`). */
export interface BatchSamplerOptions {
  batchSize: number;
  shuffle: boolean;
  seed: number;
  mixWeights?: readonly number[] | null;
}

/** What the sampler draws from: rows grouped by file (file f's rows are a contiguous run). */
export interface SampledData<R> {
  readonly rows: readonly R[];
  readonly fileSizes: readonly number[];
}

/** One training batch and the state to resume after it. */
export interface SampledBatch<R = DatasetRow> {
  rows: R[];
  /** Epoch the batch belongs to. */
  epoch: number;
  /** 0-based batch number inside the epoch. */
  batchInEpoch: number;
  /** State after this batch: pass it to the next `nextBatch` call or store it in a checkpoint. */
  state: SamplerState;
}

/** A deterministic, resumable batch sampler over a {@link Dataset}. */
export interface BatchSampler<R = DatasetRow> {
  /** Full batches per epoch (the last partial one is dropped, as verl's train dataloader does). */
  readonly stepsPerEpoch: number;
  /** The state of a fresh run. */
  readonly initialState: SamplerState;
  /** The batch at `state`; equal states always give equal batches. */
  nextBatch(state: SamplerState): SampledBatch<R>;
}

/**
 * Creates the training sampler: epoch e is a seeded permutation (seed + e) of
 * the rows, or a weighted mix of the files; batches never straddle epochs.
 */
export function createBatchSampler<R = DatasetRow>(dataset: SampledData<R>, options: BatchSamplerOptions): BatchSampler<R> {
  const { batchSize, shuffle, seed, mixWeights = null } = options;
  const total = dataset.rows.length;
  if (!Number.isInteger(batchSize) || batchSize < 1) {
    throw new AppError(ErrorCode.InvalidParams, `batchSize: expected a positive integer, got ${batchSize}`);
  }
  if (total < batchSize) {
    throw new AppError(ErrorCode.BadRequest, `the training data has ${total} rows after filtering, fewer than data.train_batch_size (${batchSize})`, {
      details: { rows: total, batchSize },
    });
  }
  if (mixWeights !== null && mixWeights.length !== dataset.fileSizes.length) {
    throw new AppError(ErrorCode.InvalidParams, `mixWeights: expected ${dataset.fileSizes.length} weights (one per file), got ${mixWeights.length}`);
  }
  let cached: { epoch: number; order: Int32Array } | undefined;
  const orderOf = (epoch: number): Int32Array => {
    if (cached?.epoch !== epoch) cached = { epoch, order: epochOrder({ fileSizes: dataset.fileSizes, epoch, seed, shuffle, weights: mixWeights }) };
    return cached.order;
  };
  return {
    stepsPerEpoch: Math.floor(total / batchSize),
    initialState: { epoch: 0, index: 0 },
    nextBatch(state) {
      const checked = SamplerState.safeParse(state);
      if (!checked.success) throw new AppError(ErrorCode.InvalidParams, `sampler state: ${checked.error.message}`);
      let { epoch, index } = checked.data;
      if (index > total) {
        throw new AppError(ErrorCode.BadRequest, `sampler state index ${index} is past the ${total} training rows; did the data change since the checkpoint?`);
      }
      if (index + batchSize > total) {
        epoch += 1;
        index = 0;
      }
      const order = orderOf(epoch);
      const rows = Array.from(order.subarray(index, index + batchSize), (pos) => dataset.rows[pos] as R);
      return { rows, epoch, batchInEpoch: Math.floor(index / batchSize), state: { epoch, index: index + batchSize } };
    },
  };
}

/** Validation batches in file order (verl does not shuffle validation); null batchSize = one batch. */
export function validationBatches(dataset: Dataset, batchSize: number | null): DatasetRow[][] {
  const size = batchSize ?? Math.max(1, dataset.rows.length);
  const out: DatasetRow[][] = [];
  for (let i = 0; i < dataset.rows.length; i += size) out.push(dataset.rows.slice(i, i + size));
  return out;
}
