import { describe, expect, it } from 'vitest';
import { tokenBatches } from './token-batches.ts';

describe('tokenBatches', () => {
  it('packs items shortest first while rows x longest row stays within the budget', () => {
    expect(tokenBatches([10, 40, 10, 20, 40], 80)).toEqual([
      [0, 2, 3],
      [1, 4],
    ]);
  });

  it('runs an item longer than the budget alone, and keeps every index exactly once', () => {
    const lengths = [5, 500, 7, 6, 300];
    const batches = tokenBatches(lengths, 100);
    expect(batches).toEqual([[0, 3, 2], [4], [1]]);
    expect(batches.flat().sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4]);
    for (const b of batches) if (b.length > 1) expect(b.length * Math.max(...b.map((i) => lengths[i] as number))).toBeLessThanOrEqual(100);
  });

  it('answers no batches for no items', () => {
    expect(tokenBatches([], 100)).toEqual([]);
  });
});
