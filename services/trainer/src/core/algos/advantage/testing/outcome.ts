import type { Rng } from '@rl/service-kit/core';

/** verl test `_make_group_index`: every group gets two samples, the rest are spread at random, then shuffled. */
export function makeGroupIndex(rng: Rng, batchSize: number, numGroups: number): number[] {
  const counts = new Array<number>(numGroups).fill(2);
  for (let i = 0; i < batchSize - 2 * numGroups; i++) {
    const g = rng.int(0, numGroups - 1);
    counts[g] = (counts[g] as number) + 1;
  }
  const index = counts.flatMap((c, g) => new Array<number>(c).fill(g));
  for (let i = index.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [index[i], index[j]] = [index[j] as number, index[i] as number];
  }
  return index;
}

/** verl test `_rand_mask`: random 0/1 entries, a row with no 1 gets its last entry set. */
export function randMask(rng: Rng, batchSize: number, seqLen: number): Float32Array {
  const mask = Float32Array.from({ length: batchSize * seqLen }, () => (rng.next() < 0.5 ? 0 : 1));
  for (let b = 0; b < batchSize; b++) {
    let any = false;
    for (let t = 0; t < seqLen; t++) any ||= mask[b * seqLen + t] === 1;
    if (!any) mask[b * seqLen + seqLen - 1] = 1;
  }
  return mask;
}
