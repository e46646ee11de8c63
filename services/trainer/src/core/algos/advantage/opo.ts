import type { AdvantageResult } from './gae.ts';
import { prepareOutcome, type OutcomeInput } from './grpo.ts';
import { at, broadcastRows } from '../types.ts';

/**
 * verl `compute_opo_outcome_advantage` ("opo", https://arxiv.org/abs/2505.23585): the baseline is
 * the length-weighted mean score of the group, sum(len_i * score_i) / sum(len_i), with len_i the
 * number of response tokens (mask sum). A single-response group uses baseline 0.
 */
export function computeOpoOutcomeAdvantage(input: OutcomeInput): AdvantageResult {
  const { scores, groups } = prepareOutcome(input);
  const { batchSize, seqLen } = input.shape;
  const lengths = new Float64Array(batchSize);
  for (let b = 0; b < batchSize; b++) {
    let n = 0;
    for (let t = 0; t < seqLen; t++) n += at(input.responseMask, b * seqLen + t);
    lengths[b] = n;
  }
  const adv = new Float64Array(batchSize);
  for (const rows of groups.values()) {
    let baseline = 0;
    if (rows.length > 1) {
      let weighted = 0;
      let total = 0;
      for (const r of rows) {
        weighted += at(lengths, r) * at(scores, r);
        total += at(lengths, r);
      }
      baseline = weighted / total;
    }
    for (const r of rows) adv[r] = at(scores, r) - baseline;
  }
  const advantages = broadcastRows(adv, input.responseMask, input.shape);
  return { advantages, returns: advantages };
}
