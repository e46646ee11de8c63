// Decoding with a fixed-capacity KV cache: one prefill over the prompts, then
// one cheap step per token. Every row writes the same cache column each step
// (prompts are left-padded). When half the batch has finished, the live rows
// are gathered into a smaller batch bucket so finished rows stop costing compute.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { np, tree, type Tensor } from '../model/backend.ts';
import { batchBucket } from '../training/batch-layout.ts';
import { allDone, initialSlots, sampleRows, type Chunk } from './generation-chunk.ts';
import type { PolicyCore } from '../policy-core.ts';
import type { ResolvedSampling } from './sampling-params.ts';
import type { KvCache } from '../model/transformer.ts';

interface Batch {
  slots: number[];
  cache: KvCache;
  keyMask: Float32Array<ArrayBuffer>;
  tokens: number[];
}

/** Gathers the unfinished rows into a smaller bucket when that halves the batch or better; consumes `batch.cache`. */
function compact(chunk: Chunk, batch: Batch, capacity: number): Batch {
  const live = batch.slots.flatMap((row, slot) => (row >= 0 && !(chunk.rows[row]?.done ?? true) ? [slot] : []));
  const rows = batchBucket(live.length);
  if (rows * 2 > batch.slots.length) return batch;
  const pick = Array.from({ length: rows }, (_, i) => live[i] ?? (live[0] as number));
  const index = np.array(Int32Array.from(pick));
  const take = (t: Tensor) => np.take(t, index.ref, 0);
  const cache = { k: batch.cache.k.map(take), v: batch.cache.v.map(take) };
  index.dispose();
  const keyMask = new Float32Array(rows * capacity);
  pick.forEach((slot, i) => keyMask.set(batch.keyMask.subarray(slot * capacity, (slot + 1) * capacity), i * capacity));
  return {
    slots: pick.map((slot, i) => (i < live.length ? (batch.slots[slot] as number) : -1)),
    cache,
    keyMask,
    tokens: pick.map((slot) => batch.tokens[slot] as number),
  };
}

/** Generates every row of `chunk` with the KV cache. */
export async function decodeWithCache(core: PolicyCore, chunk: Chunk, s: ResolvedSampling, signal: AbortSignal | undefined): Promise<void> {
  const { block, capacity } = chunk;
  const { rows, width } = block;
  const keyMask = new Float32Array(rows * capacity);
  for (let r = 0; r < rows; r++) keyMask.set(block.keyMask.subarray(r * width, (r + 1) * width), r * capacity);
  const shaped = (a: Int32Array<ArrayBuffer> | Float32Array<ArrayBuffer>) => np.array(a).reshape([rows, width]);
  const first = core.kernels.prefill(tree.ref(core.params), shaped(block.ids), shaped(block.positions), shaped(block.keyMask), capacity);
  // Ownership: data() consumes `logits` and decode()/compact() consume the cache; null marks "nothing left to free".
  let logits: Tensor | null = first.logits;
  let batch: Batch = { slots: initialSlots(chunk), cache: first.cache, keyMask, tokens: [] };
  try {
    for (let step = 0; ; step++) {
      const host = await logits.data();
      logits = null;
      batch.tokens = sampleRows(chunk, batch.slots, host, core.config.vocabSize, s, core.tokenizer.padId);
      if (allDone(chunk)) break;
      signal?.throwIfAborted();
      await nextTurn();
      batch = compact(chunk, batch, capacity);
      const b = batch.slots.length;
      const column = width + step;
      for (let r = 0; r < b; r++) batch.keyMask[r * capacity + column] = 1;
      const onehot = new Float32Array(capacity);
      onehot[column] = 1;
      const positions = Float32Array.from(batch.slots, (row) => (chunk.lengths[row] ?? chunk.lengths[0] ?? 0) + step);
      const cache = batch.cache;
      batch.cache = { k: [], v: [] };
      const next = core.kernels.decode(
        tree.ref(core.params),
        cache,
        np.array(Int32Array.from(batch.tokens)),
        np.array(positions),
        np.array(batch.keyMask.slice()).reshape([b, capacity]),
        np.array(onehot),
      );
      batch.cache = next.cache;
      logits = next.logits;
    }
  } finally {
    logits?.dispose();
    tree.dispose(batch.cache);
  }
}
