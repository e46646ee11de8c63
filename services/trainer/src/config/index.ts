export { JobConfig, JobConfigInput } from './job-config.ts';
export { DataConfig, DEFAULT_DATA_SEED } from './data-config.ts';
export { ActorConfig, ActorRolloutRefConfig, ModelConfig, RolloutSamplingConfig } from './actor-rollout-ref-config.ts';
export { AlgorithmConfig, CriticConfig, KlCtrlSection } from './algorithm-config.ts';
export { TrainerConfig } from './trainer-config.ts';
export { RewardConfig, RolloutServiceConfig } from './reward-config.ts';
export { parseJobConfig, readJobConfigFile, validateJobConfig, type ParseJobConfigOptions } from './load-job-config.ts';
export { applyOverrides, parseOverrides, type Override } from './overrides.ts';
export { formatIssues, showValue, type ConfigProblem } from './format-issues.ts';
