export { MetricKey, TimingStage, REWARD_PREFIX, TIMING_PREFIX } from './metric-keys.ts';
export { mean, numericValue, summarize, unbiasedVariance, type Summary } from './stats.ts';
export { computeRewardMetrics, type ScoredSample } from './reward-metrics.ts';
export {
  computeExplainedVariance,
  computeLengthMetrics,
  computeTimingMetrics,
  computeTokenStats,
  maskedValues,
  reduceMetrics,
  type LengthInput,
  type TokenCounts,
} from './batch-metrics.ts';
export { computeValidationMetrics, type ValidationMetricsOptions, type ValidationSample } from './validation-metrics.ts';
export { buildStepMetrics, type MetricsRecord, type StepMetricsInput } from './step-metrics.ts';
export { parseMetricsJsonl, readMetricsJsonl, type MetricsFile } from './jsonl-reader.ts';
export { openMetricsLog, type MetricsLog, type OpenMetricsLogOptions } from './jsonl-writer.ts';
