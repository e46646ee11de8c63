import type { Rng } from '@rl/service-kit/core';
import type { GlobalBatchInfo, LossAggMode } from '../loss/agg-loss.ts';
import type { RolloutCorrectionParams } from '../rollout-correction/correction.ts';
import type { Floats, Mask, Shape } from '../types.ts';

/** PPO clip settings (verl actor `clip_ratio`, `clip_ratio_low`, `clip_ratio_high`, `clip_ratio_c`). */
export interface PpoClipConfig {
  /** Symmetric clip epsilon. @default 0.2 */
  readonly clipRatio?: number;
  /** Lower epsilon: ratio >= 1 - clipRatioLow. @default clipRatio */
  readonly clipRatioLow?: number;
  /** Upper epsilon: ratio <= 1 + clipRatioHigh (DAPO "clip-higher"). @default clipRatio */
  readonly clipRatioHigh?: number;
  /** Dual-clip bound for negative advantages (https://arxiv.org/abs/1912.09729); must exceed 1. @default 3.0 */
  readonly clipRatioC?: number;
}

/**
 * Everything verl's policy-loss functions read from the actor config (camelCase of
 * actor_rollout_ref.actor.* and actor.policy_loss.*). Each mode reads only its own fields.
 */
export interface PolicyLossParams extends PpoClipConfig {
  /** SAPO gate temperature for A > 0 (actor `tau_pos`). @default 1.0 */
  readonly tauPos?: number;
  /** SAPO gate temperature for A <= 0 (actor `tau_neg`). @default 1.05 */
  readonly tauNeg?: number;
  /** clip_cov: share of valid tokens whose gradient is cut (policy_loss `clip_cov_ratio`). @default 0.0002 */
  readonly clipCovRatio?: number;
  /** clip_cov: covariance lower bound, exclusive. @default 1.0 */
  readonly clipCovLb?: number;
  /** clip_cov: covariance upper bound, exclusive. @default 5.0 */
  readonly clipCovUb?: number;
  /** kl_cov: share of valid tokens that get the |log-ratio| penalty. @default 0.0002 */
  readonly klCovRatio?: number;
  /** kl_cov: coefficient of that penalty. @default 0.1 */
  readonly ppoKlCoef?: number;
  /** bypass_mode: verl `policy_loss.rollout_correction` (required by that mode, as in verl). */
  readonly rolloutCorrection?: RolloutCorrectionParams;
}

/** The arguments verl passes to every registered policy loss (plus the parameters above). */
export interface PolicyLossFnInput extends PolicyLossParams {
  readonly shape: Shape;
  /** [batch, seqLen] log-probs of the old (rollout, in bypass mode) policy: constant. */
  readonly oldLogProb: Floats;
  /** [batch, seqLen] log-probs of the policy being trained: the gradient is taken with respect to these. */
  readonly logProb: Floats;
  readonly advantages: Floats;
  readonly responseMask: Mask;
  /** @default "token-mean" (gspo and sapo always use "seq-mean-token-mean"; geo_mean ignores it) */
  readonly lossAggMode?: LossAggMode;
  readonly global?: GlobalBatchInfo;
  /** Optional [batch, seqLen] rollout-correction weights (constant); bypass_mode computes its own. */
  readonly rolloutIsWeights?: Floats;
  /** clip_cov's random choice of tokens (verl: torch.randperm on the global torch generator). */
  readonly rng?: Rng;
  /**
   * The values verl reads through `.detach()` / `torch.no_grad()` (default: logProb). Only for
   * gradient checks: finite differences of pgLoss with these held fixed equal dLogProb.
   */
  readonly detachedLogProb?: Floats;
}

/** The scalar loss, verl's metrics for the mode (verl names), and dLoss/dlogProb per token. */
export interface PolicyLossFnResult {
  readonly pgLoss: number;
  readonly dLogProb: Float32Array;
  readonly metrics: Readonly<Record<string, number>>;
}

/** The tensor inputs every policy loss takes, the vanilla one included (see PolicyLossInput in vanilla.ts). */
export type PolicyLossTensorKey = 'shape' | 'oldLogProb' | 'logProb' | 'advantages' | 'responseMask' | 'lossAggMode' | 'global' | 'rolloutIsWeights';

/** A registered policy loss (verl `PolicyLossFn`). */
export type PolicyLossFn = (input: PolicyLossFnInput) => PolicyLossFnResult;
