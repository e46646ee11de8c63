import type { AdvantageResult } from './gae.ts';
import { assertMatrix, assertShape, assertVector, at, type Floats, type Mask, type Shape } from '../types.ts';

/** Inputs of {@link computeRemaxOutcomeAdvantage}. */
export interface RemaxInput {
  readonly shape: Shape;
  readonly tokenLevelRewards: Floats;
  /** [batch] reward of the greedy response to the same prompt (verl `reward_baselines`). */
  readonly rewardBaselines: Floats;
  readonly responseMask: Mask;
}

/**
 * verl `compute_remax_outcome_advantage` ("remax", https://arxiv.org/abs/2310.10505):
 * returns = reverse cumulative sum of rewards * mask along the row (reward-to-go);
 * advantages = returns - baseline * mask. No whitening.
 */
export function computeRemaxOutcomeAdvantage(input: RemaxInput): { advantages: Float32Array; returns: Float32Array } {
  const { shape, tokenLevelRewards, rewardBaselines, responseMask } = input;
  assertShape(shape);
  assertMatrix('tokenLevelRewards', tokenLevelRewards, shape);
  assertMatrix('responseMask', responseMask, shape);
  assertVector('rewardBaselines', rewardBaselines, shape.batchSize);
  const { batchSize, seqLen } = shape;
  const returns = new Float32Array(batchSize * seqLen);
  const advantages = new Float32Array(batchSize * seqLen);
  for (let b = 0; b < batchSize; b++) {
    let toGo = 0;
    const baseline = at(rewardBaselines, b);
    for (let t = seqLen - 1; t >= 0; t--) {
      const i = b * seqLen + t;
      const m = at(responseMask, i);
      toGo += at(tokenLevelRewards, i) * m;
      returns[i] = toGo;
      advantages[i] = toGo - baseline * m;
    }
  }
  return { advantages, returns } satisfies AdvantageResult;
}
