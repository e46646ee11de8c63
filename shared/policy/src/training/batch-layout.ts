// How token lists become padded device inputs. Prompts are LEFT-padded so every
// row's next token lands in the same column (one cache write per step for the
// whole batch); responses are RIGHT-padded after them (verl's layout). Positions
// come from the mask, so padding never shifts RoPE positions. Batch and widths
// are rounded up to buckets because jax-js compiles once per shape.

/** Rounds `n` up to a multiple of `step` (at least `step`). */
export function roundUp(n: number, step: number): number {
  return Math.max(step, Math.ceil(n / step) * step);
}

/**
 * Token widths (prompt, response, cache capacity) are padded to: multiples of
 * `step` up to 64, then the next of 2^k or 1.5 * 2^k. Each distinct shape costs
 * a compilation and memory that jax-js keeps, so long inputs of many lengths
 * must share a few shapes (at most a third wasted).
 */
export function widthBucket(n: number, step = 8): number {
  if (n <= 64) return roundUp(n, step);
  const pow = 2 ** Math.ceil(Math.log2(n));
  return n <= pow * 0.75 ? pow * 0.75 : pow;
}

/** Rows a batch of `n` is padded to: powers of two up to 64, then multiples of 64. */
export function batchBucket(n: number): number {
  if (n <= 1) return 1;
  if (n <= 64) return 2 ** Math.ceil(Math.log2(n));
  return roundUp(n, 64);
}

/** Host buffers of a `[rows, width]` padded block. */
export interface PaddedBlock {
  rows: number;
  width: number;
  ids: Int32Array<ArrayBuffer>;
  positions: Float32Array<ArrayBuffer>;
  keyMask: Float32Array<ArrayBuffer>;
}

/**
 * Left-pads `prompts` into `[rows, width]`. Rows past `prompts.length` repeat
 * the first prompt (they keep the batch shape and are ignored).
 */
export function leftPad(prompts: readonly (readonly number[])[], rows: number, width: number, padId: number): PaddedBlock {
  const ids = new Int32Array(rows * width).fill(padId);
  const positions = new Float32Array(rows * width);
  const keyMask = new Float32Array(rows * width);
  for (let r = 0; r < rows; r++) {
    const prompt = prompts[r] ?? (prompts[0] as readonly number[]);
    const offset = width - prompt.length;
    for (let j = 0; j < prompt.length; j++) {
      const at = r * width + offset + j;
      ids[at] = prompt[j] as number;
      positions[at] = j;
      keyMask[at] = 1;
    }
  }
  return { rows, width, ids, positions, keyMask };
}

/** A teacher-forcing batch: left-padded prompts `[rows, P]`, right-padded responses `[rows, R]`. */
export interface PairBlock {
  rows: number;
  promptWidth: number;
  responseWidth: number;
  promptIds: Int32Array<ArrayBuffer>;
  responseIds: Int32Array<ArrayBuffer>;
  /** `[rows, P + R]` */
  positions: Float32Array<ArrayBuffer>;
  /** `[rows, P + R]`, 0 on padding. */
  keyMask: Float32Array<ArrayBuffer>;
  /** `[rows, R]`, 1 on real response tokens. */
  responseMask: Float32Array<ArrayBuffer>;
}

/** Packs (prompt, response) pairs; extra rows repeat the first pair. */
export function packPairs(
  pairs: ReadonlyArray<{ prompt: readonly number[]; response: readonly number[] }>,
  rows: number,
  promptWidth: number,
  responseWidth: number,
  padId: number,
): PairBlock {
  const total = promptWidth + responseWidth;
  const prompts = leftPad(
    pairs.map((p) => p.prompt),
    rows,
    promptWidth,
    padId,
  );
  const responseIds = new Int32Array(rows * responseWidth).fill(padId);
  const positions = new Float32Array(rows * total);
  const keyMask = new Float32Array(rows * total);
  const responseMask = new Float32Array(rows * responseWidth);
  for (let r = 0; r < rows; r++) {
    const pair = pairs[r] ?? pairs[0];
    if (pair === undefined) break;
    positions.set(prompts.positions.subarray(r * promptWidth, (r + 1) * promptWidth), r * total);
    keyMask.set(prompts.keyMask.subarray(r * promptWidth, (r + 1) * promptWidth), r * total);
    for (let j = 0; j < responseWidth; j++) {
      const at = r * total + promptWidth + j;
      positions[at] = pair.prompt.length + j;
      if (j < pair.response.length) {
        responseIds[r * responseWidth + j] = pair.response[j] as number;
        keyMask[at] = 1;
        if (r < pairs.length) responseMask[r * responseWidth + j] = 1;
      }
    }
  }
  return { rows, promptWidth, responseWidth, promptIds: prompts.ids, responseIds, positions, keyMask, responseMask };
}
