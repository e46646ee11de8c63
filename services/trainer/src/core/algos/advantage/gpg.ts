import type { AdvantageResult } from './gae.ts';
import { prepareOutcome, type OutcomeInput } from './grpo.ts';
import { meanOf } from './groups.ts';
import { at, broadcastRows } from '../types.ts';

/** Inputs of {@link computeGpgOutcomeAdvantage}. */
export interface GpgInput extends OutcomeInput {
  /** Divisor of the advantage. @default 1.0 */
  readonly fNorm?: number;
}

/**
 * verl `compute_gpg_outcome_advantage` ("gpg", https://arxiv.org/abs/2504.02546):
 * alpha * (score - group mean) / f_norm with alpha = batch size / max(1, number of non-zero scores).
 * verl's `alpha` argument is overwritten by that formula, so it is not an input here. A
 * single-response group uses mean 0. Pair with the "gpg" policy loss.
 */
export function computeGpgOutcomeAdvantage(input: GpgInput): AdvantageResult {
  const { scores, groups } = prepareOutcome(input);
  const fNorm = input.fNorm ?? 1.0;
  let nonZero = 0;
  for (const s of scores) if (s !== 0) nonZero++;
  const alpha = scores.length / Math.max(nonZero, 1);
  const adv = new Float64Array(scores.length);
  for (const rows of groups.values()) {
    const mean = rows.length === 1 ? 0 : meanOf(scores, rows);
    for (const r of rows) adv[r] = (alpha * (at(scores, r) - mean)) / fNorm;
  }
  const advantages = broadcastRows(adv, input.responseMask, input.shape);
  return { advantages, returns: advantages };
}
