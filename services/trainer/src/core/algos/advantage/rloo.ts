import type { AdvantageResult } from './gae.ts';
import { prepareOutcome, type OutcomeInput } from './grpo.ts';
import { meanOf } from './groups.ts';
import { at, broadcastRows } from '../types.ts';

/**
 * verl `compute_rloo_outcome_advantage` ("rloo"): leave-one-out baseline,
 * score * n/(n-1) - mean * n/(n-1) = score - mean of the other n-1 responses. A single-response
 * group keeps its raw score (verl skips the update when n == 1).
 */
export function computeRlooOutcomeAdvantage(input: OutcomeInput): AdvantageResult {
  const { scores, groups } = prepareOutcome(input);
  const adv = new Float64Array(scores);
  for (const rows of groups.values()) {
    const n = rows.length;
    if (n === 1) continue;
    const mean = meanOf(scores, rows);
    for (const r of rows) adv[r] = (at(scores, r) * n) / (n - 1) - (mean * n) / (n - 1);
  }
  const advantages = broadcastRows(adv, input.responseMask, input.shape);
  return { advantages, returns: advantages };
}

/**
 * verl `compute_rloo_vectorized_outcome_advantage` ("rloo_vectorized"): (n*score - group sum) / (n-1)
 * for groups of two or more. Unlike "rloo", a single-response group gets advantage 0.
 */
export function computeRlooVectorizedOutcomeAdvantage(input: OutcomeInput): AdvantageResult {
  const { scores, groups } = prepareOutcome(input);
  const adv = new Float64Array(scores.length);
  for (const rows of groups.values()) {
    const n = rows.length;
    if (n === 1) continue;
    let sum = 0;
    for (const r of rows) sum += at(scores, r);
    for (const r of rows) adv[r] = (n * at(scores, r) - sum) / (n - 1);
  }
  const advantages = broadcastRows(adv, input.responseMask, input.shape);
  return { advantages, returns: advantages };
}
