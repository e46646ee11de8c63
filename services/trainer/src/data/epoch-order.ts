import { createRng, type Rng } from '@rl/service-kit/core';

/** What fixes the order of one epoch. */
export interface EpochOrderOptions {
  /** Rows per file; file f owns positions [sum of earlier sizes, + size). */
  fileSizes: readonly number[];
  epoch: number;
  /** Epoch e shuffles with seed + e, so any epoch's order can be rebuilt alone (resume). */
  seed: number;
  shuffle: boolean;
  /** Per-file sampling weights; omitted or null = plain concatenation. */
  weights?: readonly number[] | null;
}

function permutation(size: number, offset: number, rng: Rng | undefined): Int32Array {
  const out = new Int32Array(size);
  for (let i = 0; i < size; i++) out[i] = offset + i;
  if (rng === undefined) return out;
  // Fisher–Yates from the end, as torch's randperm does (not bit-identical to torch, but seeded).
  for (let i = size - 1; i > 0; i--) {
    const j = rng.int(0, i);
    const t = out[i] as number;
    out[i] = out[j] as number;
    out[j] = t;
  }
  return out;
}

function offsetsOf(sizes: readonly number[]): number[] {
  const offsets: number[] = [];
  let sum = 0;
  for (const s of sizes) {
    offsets.push(sum);
    sum += s;
  }
  return offsets;
}

/** The file whose cumulative-weight interval holds `r`; rounding past the end falls on the last live file. */
function pickFile(live: readonly number[], r: number): number {
  let last = 0;
  for (const [f, w] of live.entries()) {
    if (w <= 0) continue;
    if (r < w) return f;
    r -= w;
    last = f;
  }
  return last;
}

/**
 * Weighted mixing: every draw picks a file with probability proportional to its
 * weight and takes that file's next row; a file that runs out starts a fresh
 * pass (reshuffled when shuffling), so small files are oversampled as asked.
 */
function mixedOrder(sizes: readonly number[], weights: readonly number[], rng: Rng, shuffle: boolean): Int32Array {
  const offsets = offsetsOf(sizes);
  const total = sizes.reduce((a, b) => a + b, 0);
  const live = sizes.map((s, f) => (s > 0 ? (weights[f] ?? 0) : 0));
  const weightSum = live.reduce((a, b) => a + b, 0);
  const passes = sizes.map((s, f) => permutation(s, offsets[f] as number, shuffle ? rng : undefined));
  const cursor = sizes.map(() => 0);
  const out = new Int32Array(total);
  for (let k = 0; k < total; k++) {
    const f = pickFile(live, rng.next() * weightSum);
    if (cursor[f] === sizes[f]) {
      passes[f] = permutation(sizes[f] as number, offsets[f] as number, shuffle ? rng : undefined);
      cursor[f] = 0;
    }
    out[k] = (passes[f] as Int32Array)[cursor[f] as number] as number;
    cursor[f] = (cursor[f] as number) + 1;
  }
  return out;
}

/**
 * The order of dataset positions for one epoch: a pure function of
 * (sizes, epoch, seed, shuffle, weights), so a resumed run rebuilds it exactly.
 */
export function epochOrder(options: EpochOrderOptions): Int32Array {
  const { fileSizes, epoch, seed, shuffle, weights } = options;
  const total = fileSizes.reduce((a, b) => a + b, 0);
  const rng = createRng((seed + epoch) >>> 0);
  if (weights !== undefined && weights !== null && fileSizes.length > 1) return mixedOrder(fileSizes, weights, rng, shuffle);
  return permutation(total, 0, shuffle ? rng : undefined);
}
