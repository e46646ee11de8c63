// The one seed mixer: every derived seed (a sample of a group, a turn of a
// trajectory, a row of a batch, a choice of a completion) is a murmur3
// finaliser over a golden-ratio combination of its inputs, so derived seeds
// are independent of each other and of how requests were batched.

/** The murmur3 32-bit finaliser: every input bit flips about half of the output bits. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** 32-bit mix of a seed and a list of integers, one finaliser round per part. */
export function mixSeed(seed: number, ...parts: number[]): number {
  let h = seed >>> 0;
  for (const p of parts) h = fmix32(Math.imul(h ^ (p >>> 0), 0x9e3779b1));
  return h;
}

/** Seed of batch row `row` derived from the request seed (splitmix-style: the row steps the seed by the golden ratio). */
export function rowSeed(seed: number, row: number): number {
  return fmix32((seed + Math.imul(row, 0x9e3779b9)) >>> 0);
}
