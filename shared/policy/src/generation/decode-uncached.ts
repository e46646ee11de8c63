// Decoding without a KV cache: the whole [B, capacity] sequence is recomputed
// for every new token. Slow by design; it is the reference the cached decoder
// is tested against, and the "no cache" row of the benchmark.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { np, tree } from '../model/backend.ts';
import { allDone, initialSlots, sampleRows, type Chunk } from './generation-chunk.ts';
import type { PolicyCore } from '../policy-core.ts';
import type { ResolvedSampling } from './sampling-params.ts';

/** Generates every row of `chunk` by full recomputation. */
export async function decodeWithoutCache(core: PolicyCore, chunk: Chunk, s: ResolvedSampling, signal: AbortSignal | undefined): Promise<void> {
  const { block, capacity } = chunk;
  const { rows: b, width } = block;
  const slots = initialSlots(chunk);
  const ids = new Int32Array(b * capacity).fill(core.tokenizer.padId);
  const positions = new Float32Array(b * capacity);
  const keyMask = new Float32Array(b * capacity).fill(1); // columns after the prompt: causality hides the future
  for (let r = 0; r < b; r++) {
    ids.set(block.ids.subarray(r * width, (r + 1) * width), r * capacity);
    positions.set(block.positions.subarray(r * width, (r + 1) * width), r * capacity);
    keyMask.set(block.keyMask.subarray(r * width, (r + 1) * width), r * capacity);
    const length = chunk.lengths[r] ?? chunk.lengths[0] ?? 0;
    for (let j = width; j < capacity; j++) positions[r * capacity + j] = length + j - width;
  }
  const shaped = (a: Int32Array<ArrayBuffer> | Float32Array<ArrayBuffer>) => np.array(a.slice()).reshape([b, capacity]);
  for (let step = 0; ; step++) {
    signal?.throwIfAborted();
    const onehot = new Float32Array(capacity);
    onehot[width + step - 1] = 1;
    const logits = core.kernels.logitsAt(tree.ref(core.params), shaped(ids), shaped(positions), shaped(keyMask), np.array(onehot));
    const tokens = sampleRows(chunk, slots, await logits.data(), core.config.vocabSize, s, core.tokenizer.padId);
    if (allDone(chunk)) break;
    tokens.forEach((t, r) => (ids[r * capacity + width + step] = t));
    await nextTurn();
  }
}
