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
