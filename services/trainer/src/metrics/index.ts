export type { ScoredSample } from './reward-metrics.ts';
export type { MetricsRecord } from './step-metrics.ts';
export { openMetricsLog } from './jsonl-writer.ts';
