export { TrainerServiceConfig } from './service-config.ts';
export { JobConfig, JobConfigInput } from './job-config.ts';
export { DataConfig, DEFAULT_DATA_SEED } from './data-config.ts';
export { ActorConfig, ActorRolloutRefConfig, ModelConfig, RolloutSamplingConfig } from './actor-rollout-ref-config.ts';
export { AlgorithmConfig, CriticConfig, KlCtrlSection } from './algorithm-config.ts';
export { TrainerConfig } from './trainer-config.ts';
export { RewardConfig, RolloutServiceConfig } from './reward-config.ts';
export {
  parseJobConfig,
  parseRlJobConfig,
  readJobConfigFile,
  validateJobConfig,
  validateRlJobConfig,
  type ParseJobConfigOptions,
  type TrainingJobConfig,
} from './load-job-config.ts';
export { SftDataConfig, SftJobConfig, SftJobConfigInput, SftOptimConfig } from './sft-config.ts';
export { applyOverrides, parseOverrides, type Override } from './overrides.ts';
export { formatIssues, showValue, type ConfigProblem } from './format-issues.ts';
