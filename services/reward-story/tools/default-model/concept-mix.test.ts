import { describe, expect, it } from 'vitest';
import { addMix, ConceptIds, packMix } from './concept-mix.ts';

describe('packMix', () => {
  it('keeps the heaviest concepts, scaled to unit norm times the token weight, and pads with the null concept', () => {
    const ids = new ConceptIds();
    const mix = new Map([
      ['en:a', 3],
      ['en:b', 4],
      ['en:c', 0.001],
      ['en:d', 0],
    ]);
    const packed = packMix(mix, 3, 0.5, ids);
    expect(packed.ids).toEqual([ids.idOf('en:b'), ids.idOf('en:a'), ids.idOf('en:c')]);
    expect(packed.weights[0]).toBeCloseTo(0.4, 6);
    expect(packed.weights[1]).toBeCloseTo(0.3, 6);
    expect(packMix(mix, 5, 0.5, ids).ids.slice(3)).toEqual([0, 0]); // en:d has no weight
  });

  it('gives weightless tokens and empty mixes only null slots', () => {
    const ids = new ConceptIds();
    expect(packMix(new Map([['en:a', 1]]), 2, 0, ids)).toEqual({ ids: [0, 0], weights: [0, 0] });
    expect(packMix(new Map(), 2, 1, ids)).toEqual({ ids: [0, 0], weights: [0, 0] });
    expect(ids.count).toBe(1);
  });

  it('breaks weight ties by key, so the order of insertion does not change the file', () => {
    const a = packMix(
      new Map([
        ['x', 1],
        ['y', 1],
      ]),
      1,
      1,
      new ConceptIds(),
    );
    const b = packMix(
      new Map([
        ['y', 1],
        ['x', 1],
      ]),
      1,
      1,
      new ConceptIds(),
    );
    expect(a).toEqual(b);
  });
});

describe('addMix', () => {
  it('adds a scaled mix into another', () => {
    const into = new Map([['a', 1]]);
    addMix(
      into,
      new Map([
        ['a', 1],
        ['b', 2],
      ]),
      0.5,
    );
    expect(into).toEqual(
      new Map([
        ['a', 1.5],
        ['b', 1],
      ]),
    );
  });
});
