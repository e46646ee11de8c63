import { describe, expect, it } from 'vitest';
import { fmix32, mixSeed, rowSeed } from './seed-mix.ts';

// Golden values of the two mixers this module replaced (generation's core/seeds.ts
// mixSeed and @rl/policy's rowSeed): a changed value would change every seeded
// rollout and sample.
describe('mixSeed (per-sample, per-turn and per-choice seeds)', () => {
  it.each<[number, number[], number]>([
    [0, [], 0],
    [42, [0], 1716251024],
    [42, [1], 1197473426],
    [42, [1, 2], 4014430180],
    [0xffffffff, [7, 0x7475726e], 3005100175],
    [-5, [3], 2755713808],
  ])('mixSeed(%i, ...%j) = %i', (seed, parts, expected) => {
    expect(mixSeed(seed, ...parts)).toBe(expected);
  });

  it('chains: mixing two parts is mixing one, then the other', () => {
    expect(mixSeed(42, 1, 2)).toBe(mixSeed(mixSeed(42, 1), 2));
  });
});

describe('rowSeed (the seed of one row of a batch)', () => {
  it.each<[number, number, number]>([
    [0, 0, 0],
    [42, 0, 142593372],
    [42, 1, 939911724],
    [42, 63, 122855156],
    [0xffffffff, 5, 280495159],
    [-1, 2, 4230986166],
  ])('rowSeed(%i, %i) = %i', (seed, row, expected) => {
    expect(rowSeed(seed, row)).toBe(expected);
  });

  it('is the finaliser of the golden-ratio step', () => {
    expect(rowSeed(7, 3)).toBe(fmix32((7 + Math.imul(3, 0x9e3779b9)) >>> 0));
  });
});
