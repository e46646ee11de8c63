import { describe, expect, it } from 'vitest';
import { sampleSeed, turnSeed } from './seeds.ts';

// Golden values from before the mixer moved to @rl/service-kit: seeded rollouts must not change.
describe('sample and turn seeds', () => {
  it('derive from the request seed, group and member', () => {
    expect([sampleSeed(42, 0, 0), sampleSeed(42, 3, 5), sampleSeed(undefined, 1, 1)]).toEqual([354285692, 2352620925, undefined]);
  });

  it('keep the first turn on the sample seed and mix later turns', () => {
    expect([turnSeed(42, 0), turnSeed(42, 1), turnSeed(42, 2), turnSeed(undefined, 1)]).toEqual([42, 948540778, 3137788771, undefined]);
  });
});
