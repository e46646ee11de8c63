import { computeRolloutIsWeights, type RolloutIsLevel } from './is-weights.ts';
import { computeOffpolicyMetrics } from './offpolicy-metrics.ts';
import { computeRolloutRejectionMask } from './rejection.ts';
import { at, invalid, type Mask, type Shape } from '../types.ts';

/** verl `policy_loss.rollout_correction` (= algorithm.rollout_correction in bypass mode), camelCase. */
export interface RolloutCorrectionParams {
  /** IS weight level; null = no weights (metrics only). @default null */
  readonly rolloutIs?: RolloutIsLevel | null;
  /** Upper truncation of the IS weights; null disables them like rolloutIs null. @default 2.0 */
  readonly rolloutIsThreshold?: number | null;
  /** Normalise the IS weights to batch mean 1. @default false */
  readonly rolloutIsBatchNormalize?: boolean;
  /** Comma-separated rejection criteria; null = none. @default null */
  readonly rolloutRs?: string | null;
  /** Rejection thresholds (required when rolloutRs is set). @default null */
  readonly rolloutRsThreshold?: string | number | null;
  /** bypass_mode's loss: PPO clip on pi/pi_rollout, or REINFORCE with explicit IS weights. @default "ppo_clip" */
  readonly lossType?: 'ppo_clip' | 'reinforce';
}

/** Result of {@link computeRolloutCorrection}: weights (or null), the rejection-applied mask and prefixed metrics. */
export interface RolloutCorrectionResult {
  readonly weights: Float64Array | null;
  readonly mask: Float64Array;
  readonly metrics: Record<string, number>;
}

/**
 * verl rollout_corr_helper `compute_rollout_correction_and_rejection_mask(old_log_prob=logProb,
 * rollout_log_prob, mask, ...)`: IS weights of log r = logProb - rolloutLogProb (if rollout_is and
 * its threshold are set), the rejection mask (if rollout_rs is set) and the off-policy metrics, all
 * prefixed "rollout_corr/". Throws when the mask has no valid token, as verl raises.
 */
export function computeRolloutCorrection(
  shape: Shape,
  logProb: ArrayLike<number>,
  rolloutLogProb: ArrayLike<number>,
  mask: Mask,
  params: RolloutCorrectionParams,
): RolloutCorrectionResult {
  let any = false;
  for (let i = 0; i < mask.length; i++) if (at(mask, i) !== 0) any = true;
  if (!any) throw invalid('responseMask', 'response_mask must contain at least one valid token (1)');
  const logRatio = Float64Array.from({ length: logProb.length }, (_, i) => at(logProb, i) - at(rolloutLogProb, i));
  const metrics: Record<string, number> = {};
  let weights: Float64Array | null = null;
  const level = params.rolloutIs ?? null;
  const threshold = params.rolloutIsThreshold === undefined ? 2.0 : params.rolloutIsThreshold;
  if (level !== null && threshold !== null) {
    const is = computeRolloutIsWeights({ shape, logRatio, mask, level, threshold, batchNormalize: params.rolloutIsBatchNormalize ?? false });
    weights = is.weights;
    Object.assign(metrics, is.metrics);
  }
  let outMask: Float64Array = Float64Array.from(mask);
  if ((params.rolloutRs ?? null) !== null) {
    if ((params.rolloutRsThreshold ?? null) === null) {
      throw invalid('rolloutRsThreshold', 'rollout_rs_threshold must be explicitly provided when rollout_rs is enabled');
    }
    const rs = computeRolloutRejectionMask({
      shape,
      logRatio,
      mask,
      rolloutRs: params.rolloutRs as string,
      rolloutRsThreshold: params.rolloutRsThreshold ?? null,
    });
    outMask = rs.mask;
    Object.assign(metrics, rs.metrics);
  }
  Object.assign(metrics, computeOffpolicyMetrics(logProb, rolloutLogProb, mask, shape));
  const prefixed: Record<string, number> = {};
  for (const [k, v] of Object.entries(metrics)) prefixed[`rollout_corr/${k}`] = v;
  return { weights, mask: outMask, metrics: prefixed };
}
