// Batches formed by token count: items sorted by length and packed while the
// padded block (rows x longest row) stays within the budget, so a batch of
// short items is wide and a long item runs with few others.

/**
 * Groups of indices into `lengths`, each group's `rows x max length` at most
 * `maxTokens` (an item longer than the budget runs alone). Shortest first;
 * equal lengths keep their order.
 */
export function tokenBatches(lengths: readonly number[], maxTokens: number): number[][] {
  const order = lengths.map((_, i) => i).sort((a, b) => (lengths[a] as number) - (lengths[b] as number) || a - b);
  const batches: number[][] = [];
  let current: number[] = [];
  for (const i of order) {
    const width = lengths[i] as number;
    // Sorted ascending: the newest item is the widest of its batch.
    if (current.length > 0 && (current.length + 1) * width > maxTokens) {
      batches.push(current);
      current = [];
    }
    current.push(i);
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
