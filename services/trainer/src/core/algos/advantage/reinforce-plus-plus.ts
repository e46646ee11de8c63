import type { AdvantageResult } from './gae.ts';
import { prepareOutcome, type OutcomeInput } from './grpo.ts';
import { meanOf } from './groups.ts';
import { maskedWhiten } from '../masked.ts';
import { assertMatrix, assertShape, at, type Floats, type Mask, type Shape } from '../types.ts';

/** Inputs of {@link computeReinforcePlusPlusOutcomeAdvantage}. */
export interface ReinforcePlusPlusInput {
  readonly shape: Shape;
  readonly tokenLevelRewards: Floats;
  readonly responseMask: Mask;
  /** Discount factor (verl `algorithm.gamma`). @default 1.0 in verl's AlgoConfig */
  readonly gamma: number;
}

function maskInPlace(values: Float32Array, mask: Mask): Float32Array {
  for (let i = 0; i < values.length; i++) values[i] = at(values, i) * at(mask, i);
  return values;
}

/**
 * verl `compute_reinforce_plus_plus_outcome_advantage` ("reinforce_plus_plus",
 * https://arxiv.org/abs/2501.03262): token-level discounted returns G_t = r_t + gamma * G_{t+1},
 * where the running return is multiplied by the mask after each step (so it restarts after EOS),
 * then advantages = masked_whiten(returns) * mask over the whole batch. Returns are not masked.
 */
export function computeReinforcePlusPlusOutcomeAdvantage(input: ReinforcePlusPlusInput): AdvantageResult {
  const { shape, tokenLevelRewards, responseMask, gamma } = input;
  assertShape(shape);
  assertMatrix('tokenLevelRewards', tokenLevelRewards, shape);
  assertMatrix('responseMask', responseMask, shape);
  const { batchSize, seqLen } = shape;
  const returns = new Float32Array(batchSize * seqLen);
  for (let b = 0; b < batchSize; b++) {
    let running = 0;
    for (let t = seqLen - 1; t >= 0; t--) {
      const i = b * seqLen + t;
      running = at(tokenLevelRewards, i) + gamma * running;
      returns[i] = running;
      running *= at(responseMask, i);
    }
  }
  const advantages = maskInPlace(maskedWhiten(returns, responseMask), responseMask);
  return { advantages, returns };
}

/**
 * verl `compute_reinforce_plus_plus_baseline_outcome_advantage` ("reinforce_plus_plus_baseline"):
 * score minus the group mean (0 for a single-response group), broadcast over the row and masked,
 * then whitened over the batch mask and masked again. Returns equal advantages.
 */
export function computeReinforcePlusPlusBaselineOutcomeAdvantage(input: OutcomeInput): AdvantageResult {
  const { scores, groups } = prepareOutcome(input);
  const { shape, responseMask } = input;
  const centered = new Float64Array(scores.length);
  for (const rows of groups.values()) {
    const mean = rows.length === 1 ? 0 : meanOf(scores, rows);
    for (const r of rows) centered[r] = at(scores, r) - mean;
  }
  const tiled = new Float32Array(shape.batchSize * shape.seqLen);
  for (let b = 0; b < shape.batchSize; b++) {
    for (let t = 0; t < shape.seqLen; t++) {
      const i = b * shape.seqLen + t;
      tiled[i] = at(centered, b) * at(responseMask, i);
    }
  }
  const advantages = maskInPlace(maskedWhiten(tiled, responseMask), responseMask);
  return { advantages, returns: advantages };
}
