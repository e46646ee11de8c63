export { createJudgeBackends } from './create-judge-backends.ts';
export { createJudgeMetrics } from './judge-metrics.ts';
