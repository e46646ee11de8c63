/**
 * Per-sample and per-turn seeds derived from one request seed, so a rollout
 * request with a seed gives the same trajectories whatever the concurrency.
 */

/** 32-bit mix (murmur3 finaliser) of a seed and a list of integers. */
export function mixSeed(seed: number, ...parts: number[]): number {
  let h = seed >>> 0;
  for (const p of parts) {
    h = Math.imul(h ^ (p >>> 0), 0x9e3779b1) >>> 0;
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b) >>> 0;
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35) >>> 0;
    h ^= h >>> 16;
  }
  return h >>> 0;
}

/** Seed of sample `member` of group `group`, or undefined when the request has none. */
export function sampleSeed(requestSeed: number | undefined, group: number, member: number): number | undefined {
  return requestSeed === undefined ? undefined : mixSeed(requestSeed, group, member);
}

/** Seed of assistant turn `turn` (0-based) of a trajectory. */
export function turnSeed(seed: number | undefined, turn: number): number | undefined {
  return seed === undefined ? undefined : turn === 0 ? seed : mixSeed(seed, 0x7475726e, turn);
}
