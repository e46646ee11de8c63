import { maskedMean, maskedMeanRows } from '../masked.ts';
import { maxOf, mean, minOf, rowMaskedSums } from './stats.ts';
import { at, type Mask, type Shape } from '../types.ts';

/**
 * verl rollout_corr_helper `compute_offpolicy_metrics(old_log_prob=logp, rollout_log_prob, mask)`
 * (unprefixed names): training/rollout perplexities, kl, k3_kl, log-PPL differences, ppl_ratio and
 * the token and sequence chi-square divergences. Row means include fully masked rows, as in verl.
 */
export function computeOffpolicyMetrics(logProb: ArrayLike<number>, rolloutLogProb: ArrayLike<number>, mask: Mask, shape: Shape): Record<string, number> {
  const { batchSize, seqLen } = shape;
  const n = batchSize * seqLen;
  const trainMean = maskedMeanRows(logProb, mask, shape);
  const rolloutMean = maskedMeanRows(rolloutLogProb, mask, shape);
  const logRatio = Float64Array.from({ length: n }, (_, i) => at(logProb, i) - at(rolloutLogProb, i));
  const diff = trainMean.map((t, b) => at(rolloutMean, b) - t);
  const seqLogRatio = rowMaskedSums(logRatio, mask, batchSize, seqLen);
  const clampSafe = (x: number) => Math.min(Math.max(x, -20), 20);
  return {
    training_ppl: mean(trainMean.map((v) => Math.exp(-v))),
    training_log_ppl: mean(trainMean.map((v) => -v)),
    kl: maskedMean(
      logRatio.map((v) => -v),
      mask,
    ),
    k3_kl: maskedMean(
      logRatio.map((v) => Math.exp(v) - v - 1),
      mask,
    ),
    rollout_ppl: mean(rolloutMean.map((v) => Math.exp(-v))),
    rollout_log_ppl: mean(rolloutMean.map((v) => -v)),
    log_ppl_diff: mean(diff),
    log_ppl_abs_diff: mean(diff.map(Math.abs)),
    log_ppl_diff_max: maxOf(diff),
    log_ppl_diff_min: minOf(diff),
    ppl_ratio: mean(diff.map(Math.exp)),
    chi2_token:
      maskedMean(
        logRatio.map((v) => Math.exp(clampSafe(v)) ** 2),
        mask,
      ) - 1,
    chi2_seq: mean(seqLogRatio.map((v) => Math.exp(2 * clampSafe(v)))) - 1,
  };
}
