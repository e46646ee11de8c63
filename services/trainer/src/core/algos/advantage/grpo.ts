import type { AdvantageResult } from './gae.ts';
import { groupRows, meanOf, stdOf } from './groups.ts';
import { assertMatrix, assertShape, at, broadcastRows, rowSums, type Floats, type GroupId, type Mask, type Shape } from '../types.ts';

/** verl's default `epsilon` of the outcome estimators. */
export const DEFAULT_ADV_EPSILON = 1e-6;

/** Inputs shared by the outcome (one scalar reward per response) estimators. */
export interface OutcomeInput {
  readonly shape: Shape;
  /** [batch, seqLen]; the outcome score of a row is the plain sum of the row (verl does not mask it). */
  readonly tokenLevelRewards: Floats;
  readonly responseMask: Mask;
  /** Group label per sample (verl `uid`): responses to the same prompt share one. */
  readonly index: ReadonlyArray<GroupId>;
  /** @default 1e-6 */
  readonly epsilon?: number;
}

/** Inputs of the GRPO estimators. */
export interface GrpoInput extends OutcomeInput {
  /** Divide by the group std (GRPO) or not (Dr.GRPO). @default true */
  readonly normAdvByStdInGrpo?: boolean;
}

function checkOutcome(input: OutcomeInput): Float64Array {
  assertShape(input.shape);
  assertMatrix('tokenLevelRewards', input.tokenLevelRewards, input.shape);
  assertMatrix('responseMask', input.responseMask, input.shape);
  return rowSums(input.tokenLevelRewards, input.shape);
}

/** Scores of the rows and their group statistics, ready for the per-estimator formula. */
export function prepareOutcome(input: OutcomeInput): { scores: Float64Array; groups: Map<GroupId, number[]> } {
  const scores = checkOutcome(input);
  return { scores, groups: groupRows(input.index, input.shape.batchSize) };
}

/**
 * verl `compute_grpo_outcome_advantage` ("grpo"): per group, (score - mean) / (std + eps) with
 * torch's unbiased std, or score - mean when `normAdvByStdInGrpo` is false (Dr.GRPO). A group with a
 * single response uses mean 0 and std 1, so its advantage is score / (1 + eps). The scalar is
 * broadcast over the row and multiplied by the mask; returns equal advantages.
 */
export function computeGrpoOutcomeAdvantage(input: GrpoInput): AdvantageResult {
  return groupNormalized(input, stdOf);
}

/**
 * verl `compute_grpo_vectorized_outcome_advantage` ("grpo_vectorized"), via verl `group_mean_std`:
 * the same as "grpo" except that the group variance is floored at eps before the square root
 * (std = sqrt(max(var, eps))), which only matters for groups whose variance is below 1e-6.
 */
export function computeGrpoVectorizedOutcomeAdvantage(input: GrpoInput): AdvantageResult {
  const eps = input.epsilon ?? DEFAULT_ADV_EPSILON;
  return groupNormalized(input, (scores, rows) => Math.sqrt(Math.max(stdOf(scores, rows) ** 2, eps)));
}

/** (score - group mean) / (group std + eps), or score - mean without std normalisation; single-response groups use mean 0, std 1. */
function groupNormalized(input: GrpoInput, std: (scores: Float64Array, rows: number[]) => number): AdvantageResult {
  const { scores, groups } = prepareOutcome(input);
  const eps = input.epsilon ?? DEFAULT_ADV_EPSILON;
  const norm = input.normAdvByStdInGrpo ?? true;
  const adv = new Float64Array(scores.length);
  for (const rows of groups.values()) {
    const single = rows.length === 1;
    const mean = single ? 0 : meanOf(scores, rows);
    const sd = single ? 1 : std(scores, rows);
    for (const r of rows) adv[r] = norm ? (at(scores, r) - mean) / (sd + eps) : at(scores, r) - mean;
  }
  const advantages = broadcastRows(adv, input.responseMask, input.shape);
  return { advantages, returns: advantages };
}
