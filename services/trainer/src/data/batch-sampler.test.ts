import { describe, expect, it } from 'vitest';
import { AppError } from '@rl/service-kit/core';
import { createBatchSampler, validationBatches, type SamplerState } from './batch-sampler.ts';
import type { DatasetRow } from './dataset-row.ts';
import { epochOrder } from './epoch-order.ts';
import type { Dataset } from './dataset.ts';

function syntheticDataset(fileSizes: number[]): Dataset {
  const rows: DatasetRow[] = [];
  for (const [f, size] of fileSizes.entries()) {
    for (let i = 0; i < size; i++) {
      const id = rows.length;
      rows.push({
        row_id: id,
        file_index: f,
        data_source: `file${f}`,
        prompt: `p${id}`,
        prompt_without_context: null,
        ability: null,
        ground_truth: `p${id}`,
        reward_model: null,
        extra_info: {},
        agent_name: null,
        tools_kwargs: {},
        interaction_kwargs: {},
        index: 0,
      });
    }
  }
  return { rows, fileSizes, files: fileSizes.map((s, f) => ({ path: `f${f}`, rows: s, kept: s })), filteredOverlong: 0 };
}

const ids = (rows: DatasetRow[]) => rows.map((r) => r.row_id);

describe('epochOrder', () => {
  it('is a permutation that depends on seed + epoch only', () => {
    const a = epochOrder({ fileSizes: [20], epoch: 0, seed: 5, shuffle: true });
    expect([...a].sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect([...a]).not.toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(epochOrder({ fileSizes: [20], epoch: 0, seed: 5, shuffle: true })).toEqual(a);
    // epoch e uses seed + e: epoch 1 of seed 5 is epoch 0 of seed 6.
    expect(epochOrder({ fileSizes: [20], epoch: 1, seed: 5, shuffle: true })).toEqual(epochOrder({ fileSizes: [20], epoch: 0, seed: 6, shuffle: true }));
    expect(epochOrder({ fileSizes: [20], epoch: 1, seed: 5, shuffle: true })).not.toEqual(a);
  });

  it('keeps file order without shuffling', () => {
    expect([...epochOrder({ fileSizes: [3, 2], epoch: 4, seed: 1, shuffle: false })]).toEqual([0, 1, 2, 3, 4]);
  });

  it('mixes files by weight, cycling through the small file', () => {
    const order = epochOrder({ fileSizes: [900, 100], epoch: 0, seed: 3, shuffle: true, weights: [1, 1] });
    expect(order).toHaveLength(1000);
    const fromSmall = [...order].filter((p) => p >= 900).length;
    // Expected 500 of 1000 draws; a binomial sd is ~16, so 400..600 fails only for a broken mixer.
    expect(fromSmall).toBeGreaterThan(400);
    expect(fromSmall).toBeLessThan(600);
    // The small file is passed over ~5 times, each pass a full permutation, so every one of its rows appears.
    const counts = new Map<number, number>();
    for (const p of order) if (p >= 900) counts.set(p, (counts.get(p) ?? 0) + 1);
    expect(counts.size).toBe(100);
  });

  it('never picks a file of weight zero', () => {
    const order = epochOrder({ fileSizes: [5, 5], epoch: 0, seed: 1, shuffle: false, weights: [0, 2] });
    expect([...order]).toEqual([5, 6, 7, 8, 9, 5, 6, 7, 8, 9]);
  });
});

describe('createBatchSampler', () => {
  const ds = syntheticDataset([7, 3]);

  it('gives floor(rows / batch) batches per epoch and drops the remainder, like verl', () => {
    const s = createBatchSampler(ds, { batchSize: 4, shuffle: false, seed: 1 });
    expect(s.stepsPerEpoch).toBe(2);
    let state: SamplerState = s.initialState;
    const seen: Array<[number, number, number[]]> = [];
    for (let i = 0; i < 5; i++) {
      const b = s.nextBatch(state);
      seen.push([b.epoch, b.batchInEpoch, ids(b.rows)]);
      state = b.state;
    }
    expect(seen).toEqual([
      [0, 0, [0, 1, 2, 3]],
      [0, 1, [4, 5, 6, 7]],
      [1, 0, [0, 1, 2, 3]],
      [1, 1, [4, 5, 6, 7]],
      [2, 0, [0, 1, 2, 3]],
    ]);
    expect(state).toEqual({ epoch: 2, index: 4 });
  });

  it('is resumable: the same state gives the same next batch, even from a fresh sampler after JSON', () => {
    const run = createBatchSampler(ds, { batchSize: 3, shuffle: true, seed: 11 });
    let state = run.initialState;
    const batches: number[][] = [];
    for (let i = 0; i < 7; i++) {
      const b = run.nextBatch(state);
      batches.push(ids(b.rows));
      state = b.state;
    }
    // Restart after batch 4 from a checkpointed state.
    let resumed = JSON.parse(JSON.stringify(createStateAfter(run, 4))) as SamplerState;
    const fresh = createBatchSampler(ds, { batchSize: 3, shuffle: true, seed: 11 });
    const replay: number[][] = [];
    for (let i = 4; i < 7; i++) {
      const b = fresh.nextBatch(resumed);
      replay.push(ids(b.rows));
      resumed = b.state;
    }
    expect(replay).toEqual(batches.slice(4));
    expect(fresh.nextBatch({ epoch: 1, index: 3 })).toEqual(run.nextBatch({ epoch: 1, index: 3 }));
  });

  it('shuffles each epoch differently and every row once per full pass', () => {
    const s = createBatchSampler(syntheticDataset([12]), { batchSize: 4, shuffle: true, seed: 2 });
    const epochRows = (epoch: number) => [0, 4, 8].flatMap((index) => ids(s.nextBatch({ epoch, index }).rows));
    expect([...epochRows(0)].sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i));
    expect(epochRows(0)).not.toEqual(epochRows(1));
  });

  it('rejects impossible setups and states with clear errors', () => {
    expect(() => createBatchSampler(ds, { batchSize: 11, shuffle: false, seed: 1 })).toThrow(
      /has 10 rows after filtering, fewer than data\.train_batch_size \(11\)/,
    );
    expect(() => createBatchSampler(ds, { batchSize: 2, shuffle: false, seed: 1, mixWeights: [1] })).toThrow(AppError);
    const s = createBatchSampler(ds, { batchSize: 2, shuffle: false, seed: 1 });
    expect(() => s.nextBatch({ epoch: 0, index: 11 })).toThrow(/index 11 is past the 10 training rows/);
    expect(() => s.nextBatch({ epoch: -1, index: 0 } as SamplerState)).toThrow(/sampler state/);
  });
});

function createStateAfter(sampler: ReturnType<typeof createBatchSampler>, batches: number): SamplerState {
  let state = sampler.initialState;
  for (let i = 0; i < batches; i++) state = sampler.nextBatch(state).state;
  return state;
}

describe('validationBatches', () => {
  it('splits in file order, or returns one batch for null', () => {
    const ds = syntheticDataset([3, 2]);
    expect(validationBatches(ds, 2).map(ids)).toEqual([[0, 1], [2, 3], [4]]);
    expect(validationBatches(ds, null).map(ids)).toEqual([[0, 1, 2, 3, 4]]);
  });
});
