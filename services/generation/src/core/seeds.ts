/**
 * Per-sample and per-turn seeds derived from one request seed, so a rollout
 * request with a seed gives the same trajectories whatever the concurrency.
 */
import { mixSeed } from '@rl/service-kit/core';

/** Seed of sample `member` of group `group`, or undefined when the request has none. */
export function sampleSeed(requestSeed: number | undefined, group: number, member: number): number | undefined {
  return requestSeed === undefined ? undefined : mixSeed(requestSeed, group, member);
}

/** Seed of assistant turn `turn` (0-based) of a trajectory. */
export function turnSeed(seed: number | undefined, turn: number): number | undefined {
  return seed === undefined ? undefined : turn === 0 ? seed : mixSeed(seed, 0x7475726e, turn);
}
