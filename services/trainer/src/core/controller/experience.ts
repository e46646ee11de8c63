// One step's experience, as verl's RayPPOTrainer builds it between rollout and
// update: responses padded into [batch, seqLen] matrices, the sequence score
// placed on the last response token (verl's reward managers write it at
// `valid_response_length - 1`), optional KL-in-reward, then advantages by the
// configured estimator. Pure: no I/O, numbers in, numbers out.
import { AppError, ErrorCode } from '@rl/service-kit/core';
import { applyKlPenalty, computeAdvantage, type AlgoConfig, type KlController, type Shape } from '../algos/index.ts';

/** One trajectory with its reward and log-probs (already computed). */
export interface ScoredTrajectory {
  /** GRPO group: trajectories of the same prompt share it. */
  uid: string;
  responseIds: readonly number[];
  /** 1 for model tokens, 0 for tool/interaction tokens. */
  responseMask: readonly number[];
  /** Sequence score from the reward service (0 when scoring failed; see `rewardErrors`). */
  score: number;
  /** Dense per-token rewards (reward.token_rewards_key); when given they replace the score on the last token. */
  tokenRewards?: readonly number[];
  oldLogprobs: readonly number[];
  refLogprobs?: readonly number[];
  /** ReMax: the score of the greedy response to the same prompt (verl `reward_baselines`). */
  rewardBaseline?: number;
  /** The critic's value of the state before each response token (GAE). */
  values?: readonly number[];
}

/** The padded batch and the advantages. */
export interface Experience {
  shape: Shape;
  /** [batch, seqLen] 1 for model tokens that count in the loss. */
  responseMask: Float32Array;
  tokenLevelScores: Float32Array;
  tokenLevelRewards: Float32Array;
  advantages: Float32Array;
  returns: Float32Array;
  /** [batch, seqLen] critic values, when the trajectories carry them. */
  values: Float32Array | null;
  /** KL-in-reward metrics (verl `actor/reward_kl_penalty*`), when enabled. */
  metrics: Record<string, number>;
}

/** Row b of a [batch, seqLen] matrix, cut to `length`. */
export function row(m: Float32Array, shape: Shape, b: number, length: number): number[] {
  return Array.from(m.subarray(b * shape.seqLen, b * shape.seqLen + length));
}

/** Builds the experience of one step; `kl` is required when `algorithm.use_kl_in_reward`. */
export function buildExperience(trajs: readonly ScoredTrajectory[], algorithm: AlgoConfig, kl?: KlController): Experience {
  const seqLen = Math.max(1, ...trajs.map((t) => t.responseIds.length));
  const shape: Shape = { batchSize: trajs.length, seqLen };
  const n = shape.batchSize * seqLen;
  const responseMask = new Float32Array(n);
  const scores = new Float32Array(n);
  const oldLp = new Float32Array(n);
  const refLp = new Float32Array(n);
  const values = trajs.every((t) => t.values !== undefined) && trajs.length > 0 ? new Float32Array(n) : null;
  trajs.forEach((t, b) => {
    const base = b * seqLen;
    for (let i = 0; i < t.responseIds.length; i++) {
      responseMask[base + i] = t.responseMask[i] ?? 1;
      oldLp[base + i] = t.oldLogprobs[i] ?? 0;
      refLp[base + i] = t.refLogprobs?.[i] ?? 0;
      if (values !== null) values[base + i] = t.values?.[i] ?? 0;
    }
    if (t.tokenRewards !== undefined) {
      for (let i = 0; i < Math.min(t.tokenRewards.length, t.responseIds.length); i++) scores[base + i] = t.tokenRewards[i] ?? 0;
    } else {
      // An empty response still carries its score (on position 0, which its mask zeroes for the loss).
      scores[base + Math.max(0, t.responseIds.length - 1)] = t.score;
    }
  });
  let tokenLevelRewards: Float32Array = scores;
  let metrics: Record<string, number> = {};
  if (algorithm.use_kl_in_reward) {
    if (kl === undefined || trajs.some((t) => t.refLogprobs === undefined))
      throw new AppError(ErrorCode.Internal, 'use_kl_in_reward needs reference log-probs and a KL controller');
    const out = applyKlPenalty({ shape, tokenLevelScores: scores, oldLogProbs: oldLp, refLogProb: refLp, responseMask, klPenalty: algorithm.kl_penalty }, kl);
    tokenLevelRewards = out.tokenLevelRewards;
    metrics = { ...out.metrics };
  }
  const baselines = trajs.every((t) => t.rewardBaseline !== undefined) ? Float64Array.from(trajs, (t) => t.rewardBaseline!) : undefined;
  const { advantages, returns } = computeAdvantage(
    { shape, tokenLevelRewards, responseMask, index: trajs.map((t) => t.uid), ...(baselines && { rewardBaselines: baselines }), ...(values && { values }) },
    algorithm,
  );
  return { shape, responseMask, tokenLevelScores: scores, tokenLevelRewards, advantages, returns, values, metrics };
}
