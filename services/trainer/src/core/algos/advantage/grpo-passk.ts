import type { AdvantageResult } from './gae.ts';
import { DEFAULT_ADV_EPSILON, prepareOutcome, type GrpoInput } from './grpo.ts';
import { stdOf } from './groups.ts';
import { at, broadcastRows, invalid } from '../types.ts';

/**
 * verl `compute_grpo_passk_outcome_advantage` ("grpo_passk", https://arxiv.org/abs/2503.19595): only
 * the best response of each group gets a non-zero advantage, r_max - r_second_max, divided by
 * (std + eps) when `normAdvByStdInGrpo`. Groups need at least two responses. On a tie for the
 * maximum the advantage is 0, so which tied row receives it does not matter.
 */
export function computeGrpoPasskOutcomeAdvantage(input: GrpoInput): AdvantageResult {
  const { scores, groups } = prepareOutcome(input);
  const eps = input.epsilon ?? DEFAULT_ADV_EPSILON;
  const norm = input.normAdvByStdInGrpo ?? true;
  const adv = new Float64Array(scores.length);
  for (const [id, rows] of groups) {
    if (rows.length < 2) throw invalid('index', `pass@k needs at least 2 samples per group, group ${String(id)} has ${rows.length}`);
    let best = rows[0] as number;
    for (const r of rows) if (at(scores, r) > at(scores, best)) best = r;
    let second = -Infinity;
    for (const r of rows) if (r !== best && at(scores, r) > second) second = at(scores, r);
    let advantage = at(scores, best) - second;
    if (norm) advantage /= stdOf(scores, rows) + eps;
    adv[best] = advantage;
  }
  const advantages = broadcastRows(adv, input.responseMask, input.shape);
  return { advantages, returns: advantages };
}
