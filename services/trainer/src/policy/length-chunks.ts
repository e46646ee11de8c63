/**
 * Indices grouped into chunks of at most `rows`, longest first, so each chunk
 * pads to about its own longest item instead of the batch's.
 */
export function lengthChunks(lengths: readonly number[], rows: number): number[][] {
  const order = lengths.map((_, i) => i).sort((a, b) => lengths[b]! - lengths[a]! || a - b);
  const chunks: number[][] = [];
  for (let i = 0; i < order.length; i += rows) chunks.push(order.slice(i, i + rows));
  return chunks;
}

/**
 * The padded width of a chunk whose longest item is `longest`, from four
 * steps up to `maxWidth` (quarters, multiples of 8): a job meets at most four
 * shapes, which jax-js compiles once and whose buffers it reuses (widths that
 * vary freely from step to step grow its wasm heap until it runs out).
 */
export function quarterWidth(longest: number, maxWidth: number): number {
  const top = Math.ceil(Math.max(longest, maxWidth) / 8) * 8;
  for (const q of [1, 2, 3, 4]) {
    const w = Math.ceil((top * q) / 4 / 8) * 8;
    if (longest <= w) return w;
  }
  return top;
}
