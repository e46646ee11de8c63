import type { Rng } from '@rl/service-kit/core';
import { LossAggMode } from '../loss/agg-loss.ts';
import { expectGradientMatches, randomFloats, randomMask } from '../algos.test-support.ts';
import type { PolicyLossFn, PolicyLossFnInput } from './types.ts';

const f64 = (xs: number[]) => Float64Array.from(xs);

/** The 2x4 fixture of testdata/verl-reference.py (old, new, adv, pm, isw). */
export const LOSS_FIXTURE = {
  shape: { batchSize: 2, seqLen: 4 },
  oldLogProb: f64([-1, -1, -1, -1, -0.5, -0.5, -0.5, -0.5]),
  logProb: f64([-0.7, -1.5, -1.1, -0.2, -0.5, 1.0, -0.45, -2.0]),
  advantages: f64([1, 1, -1, -2, 0.5, -1, 2, -1.5]),
  responseMask: f64([1, 1, 1, 1, 1, 1, 1, 0]),
} as const;

/** `isw` of the reference script. */
export const FIXTURE_IS_WEIGHTS = f64([0.5, 1.5, 1, 1, 2, 1, 0.25, 1]);

/** An Rng whose next() replays `values` (then throws): pins clip_cov's keys to the reference script's. */
export function replayRng(values: readonly number[]): Rng {
  let i = 0;
  const next = () => {
    if (i >= values.length) throw new RangeError('replayRng exhausted');
    return values[i++] as number;
  };
  return { next, int: () => 0, pick: <T>(xs: ReadonlyArray<T>) => xs[0] as T };
}

/** Seeded random inputs (6 x 9) whose log-ratios spread over [-1.5, 1.5]. */
export function randomLossInput(seed: number): PolicyLossFnInput & { logProb: Float64Array } {
  const shape = { batchSize: 6, seqLen: 9 };
  const n = 54;
  const oldLogProb = randomFloats(seed, n, -3, -0.1);
  const offset = randomFloats(seed + 1, n, -1.5, 1.5);
  return {
    shape,
    oldLogProb,
    logProb: oldLogProb.map((o, i) => o + (offset[i] as number)),
    advantages: randomFloats(seed + 2, n, -2, 2),
    responseMask: randomMask(seed + 3, n),
    rolloutIsWeights: randomFloats(seed + 4, n, 0.5, 1.5),
  };
}

/** dLogProb of `fn` against central differences, for every aggregation mode (extra fixed per call). */
export function expectGradientsForAllModes(fn: PolicyLossFn, extra: Partial<PolicyLossFnInput> = {}, seed = 41): void {
  for (const mode of LossAggMode.options) {
    const base = { ...randomLossInput(seed), lossAggMode: mode, ...extra };
    const r = fn(base);
    // verl's detached values stay at the base point, as autograd treats them.
    expectGradientMatches((x) => fn({ ...base, logProb: x, detachedLogProb: base.logProb }).pgLoss, Float64Array.from(base.logProb), r.dLogProb);
  }
}
