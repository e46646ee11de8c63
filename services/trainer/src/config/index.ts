export { TrainerServiceConfig } from './service-config.ts';
export { JobConfig, JobConfigInput } from './job-config.ts';
export { parseRlJobConfig, validateJobConfig, validateRlJobConfig, type TrainingJobConfig } from './load-job-config.ts';
export { SftJobConfig, SftJobConfigInput } from './sft-config.ts';
export type { ConfigProblem } from './format-issues.ts';
