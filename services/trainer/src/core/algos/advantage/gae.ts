import { maskedWhiten } from '../masked.ts';
import { assertMatrix, assertShape, at, type Floats, type Mask, type Shape } from '../types.ts';

/** Inputs of {@link computeGaeAdvantageReturn}. */
export interface GaeInput {
  readonly shape: Shape;
  /** [batch, seqLen] rewards per token (after any KL penalty). */
  readonly tokenLevelRewards: Floats;
  /** [batch, seqLen] critic values of the rollout. */
  readonly values: Floats;
  readonly responseMask: Mask;
  /** Discount factor. @default 1.0 in verl's AlgoConfig */
  readonly gamma: number;
  /** GAE lambda. @default 1.0 in verl's AlgoConfig */
  readonly lam: number;
}

/** Advantages and returns, both [batch, seqLen]. */
export interface AdvantageResult {
  readonly advantages: Float32Array;
  readonly returns: Float32Array;
}

/**
 * verl `compute_gae_advantage_return` ("gae"). Walks each row backwards; positions with mask 0
 * (observation tokens of multi-turn rollouts, padding) carry the next value and the running GAE
 * through unchanged, so their own values never matter. returns = raw advantages + values (not
 * masked); the advantages are then whitened over the mask (verl `masked_whiten`).
 */
export function computeGaeAdvantageReturn(input: GaeInput): AdvantageResult {
  const { shape, tokenLevelRewards, values, responseMask, gamma, lam } = input;
  assertShape(shape);
  assertMatrix('tokenLevelRewards', tokenLevelRewards, shape);
  assertMatrix('values', values, shape);
  assertMatrix('responseMask', responseMask, shape);
  const { batchSize, seqLen } = shape;
  const raw = new Float64Array(batchSize * seqLen);
  const returns = new Float32Array(batchSize * seqLen);
  for (let b = 0; b < batchSize; b++) {
    let nextValue = 0;
    let lastGaeLam = 0;
    for (let t = seqLen - 1; t >= 0; t--) {
      const i = b * seqLen + t;
      const v = at(values, i);
      const m = at(responseMask, i);
      const delta = at(tokenLevelRewards, i) + gamma * nextValue - v;
      const candidate = delta + gamma * lam * lastGaeLam;
      // Arithmetic blend rather than a branch, as verl does, so fractional masks and NaNs behave the same.
      nextValue = v * m + (1 - m) * nextValue;
      lastGaeLam = candidate * m + (1 - m) * lastGaeLam;
      raw[i] = lastGaeLam;
      returns[i] = lastGaeLam + v;
    }
  }
  return { advantages: maskedWhiten(raw, responseMask), returns };
}
