import { np, type Tensor } from '@rl/policy';
import { maskedMean, rowMaskedMean, rowMaskedSum } from './helpers.ts';
import { rowSubset } from './rollout-stats.ts';

/**
 * verl `compute_offpolicy_metrics(old_log_prob=logp, rollout_log_prob)` on detached log-probs; the
 * per-sequence statistics run over `rows` ([B], the batch's rows). Unprefixed names; consumes its inputs.
 */
export function offpolicyMetrics(logp: Tensor, rollout: Tensor, mask: Tensor, rows: Tensor): Record<string, Tensor> {
  const r = rowSubset(rows);
  const train = rowMaskedMean(logp.ref, mask.ref);
  const roll = rowMaskedMean(rollout.ref, mask.ref);
  const logRatio = logp.sub(rollout);
  const diff = roll.ref.sub(train.ref);
  const seqLogRatio = np.clip(rowMaskedSum(logRatio.ref, mask.ref), -20, 20);
  const metrics = {
    training_ppl: r.mean(np.exp(train.ref.mul(-1))),
    training_log_ppl: r.mean(train.mul(-1)),
    kl: maskedMean(logRatio.ref.mul(-1), mask.ref),
    k3_kl: maskedMean(np.exp(logRatio.ref).sub(logRatio.ref).sub(1), mask.ref),
    rollout_ppl: r.mean(np.exp(roll.ref.mul(-1))),
    rollout_log_ppl: r.mean(roll.mul(-1)),
    log_ppl_diff: r.mean(diff.ref),
    log_ppl_abs_diff: r.mean(np.abs(diff.ref)),
    log_ppl_diff_max: r.max(diff.ref),
    log_ppl_diff_min: r.min(diff.ref),
    ppl_ratio: r.mean(np.exp(diff)),
    chi2_token: maskedMean(np.square(np.exp(np.clip(logRatio, -20, 20))), mask).sub(1),
    chi2_seq: r.mean(np.exp(seqLogRatio.mul(2))).sub(1),
  };
  r.dispose();
  return metrics;
}
