import { describe, expect, it } from 'vitest';
import { clampMemory, diedOfAllocationFailure, workerMemoryMb } from './memory.ts';

describe('workerMemoryMb', () => {
  it('rounds a run limit up to a power of two, at least 64 MiB', () => {
    expect([8, 64, 65, 100, 128, 129, 1000, 1024, 1025, 2048].map(workerMemoryMb)).toEqual([64, 64, 128, 128, 128, 256, 1024, 1024, 2048, 2048]);
  });

  it('never goes below the (clamped) run limit', () => {
    for (let mb = 1; mb <= 4096; mb += 7) expect(workerMemoryMb(clampMemory(mb))).toBeGreaterThanOrEqual(clampMemory(mb));
  });
});

describe('diedOfAllocationFailure', () => {
  it('needs a failed exit and an allocation-failure message', () => {
    const wasm = 'RangeError: WebAssembly.Memory.grow(): Unable to grow instance memory';
    expect(diedOfAllocationFailure(1, wasm)).toBe(true);
    expect(diedOfAllocationFailure(1, 'RangeError: WebAssembly.Memory(): could not allocate memory')).toBe(true);
    expect(diedOfAllocationFailure(0, wasm)).toBe(false);
    expect(diedOfAllocationFailure(1, 'RangeError: WebAssembly.Memory.grow(): Maximum memory size exceeded')).toBe(false);
  });
});
