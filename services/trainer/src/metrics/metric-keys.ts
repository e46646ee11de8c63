/**
 * Metric names, verl's where verl has one (ray_trainer.py, metric_utils.py,
 * dp_actor.py, dp_critic.py), so dashboards built for verl read our JSONL.
 */
export const MetricKey = {
  GlobalStep: 'training/global_step',
  Epoch: 'training/epoch',
  ScoreMean: 'critic/score/mean',
  ScoreStd: 'critic/score/std',
  ScoreMax: 'critic/score/max',
  ScoreMin: 'critic/score/min',
  RewardsMean: 'critic/rewards/mean',
  RewardsMax: 'critic/rewards/max',
  RewardsMin: 'critic/rewards/min',
  ResponseLengthMean: 'response_length/mean',
  ResponseLengthMax: 'response_length/max',
  ResponseLengthMin: 'response_length/min',
  ResponseLengthClipRatio: 'response_length/clip_ratio',
  AbortedRatio: 'response/aborted_ratio',
  PromptLengthMean: 'prompt_length/mean',
  PromptLengthMax: 'prompt_length/max',
  PromptLengthMin: 'prompt_length/min',
  PromptLengthClipRatio: 'prompt_length/clip_ratio',
  PgLoss: 'actor/pg_loss',
  PgClipfrac: 'actor/pg_clipfrac',
  PgClipfracLower: 'actor/pg_clipfrac_lower',
  PpoKl: 'actor/ppo_kl',
  Entropy: 'actor/entropy',
  KlLoss: 'actor/kl_loss',
  KlCoef: 'actor/kl_coef',
  GradNorm: 'actor/grad_norm',
  Lr: 'actor/lr',
  RewardKlPenalty: 'actor/reward_kl_penalty',
  RewardKlPenaltyCoeff: 'actor/reward_kl_penalty_coeff',
  VfLoss: 'critic/vf_loss',
  VfClipfrac: 'critic/vf_clipfrac',
  VfExplainedVar: 'critic/vf_explained_var',
  CriticGradNorm: 'critic/grad_norm',
  TimePerStep: 'perf/time_per_step',
  TotalNumTokens: 'perf/total_num_tokens',
  Throughput: 'perf/throughput',
  /** Ours: items whose reward came back as an error. */
  RewardErrorCount: 'reward/error_count',
  RewardErrorRatio: 'reward/error_ratio',
  /** Ours: `extra.acc` over the training batch. */
  RewardAccMean: 'reward/acc/mean',
  RewardRetries: 'reward/retries',
  /** SFT (verl fsdp_sft_trainer). */
  SftLoss: 'train/loss',
  SftValLoss: 'val/loss',
  SftLr: 'train/lr',
  SftGradNorm: 'train/grad_norm',
} as const;
/** A named metric key. */
export type MetricKey = (typeof MetricKey)[keyof typeof MetricKey];

/** Stage timers, verl's `timing_s/<stage>` names plus ours (`reward`, `weights_sync`). */
export const TimingStage = {
  Gen: 'gen',
  GenMax: 'gen_max',
  Reward: 'reward',
  OldLogProb: 'old_log_prob',
  Ref: 'ref',
  Values: 'values',
  Adv: 'adv',
  UpdateCritic: 'update_critic',
  UpdateActor: 'update_actor',
  WeightsSync: 'weights_sync',
  Testing: 'testing',
  SaveCheckpoint: 'save_checkpoint',
  Step: 'step',
} as const;
/** A stage timer name. */
export type TimingStage = (typeof TimingStage)[keyof typeof TimingStage];

/** Prefix of stage timings in seconds. */
export const TIMING_PREFIX = 'timing_s/';
/** Prefix of per-data-source training reward metrics (ours): `reward/<data_source>/<name>/mean`. */
export const REWARD_PREFIX = 'reward/';
