import { computeLengthMetrics, computeTimingMetrics, type LengthInput, type TokenCounts } from './batch-metrics.ts';
import { MetricKey } from './metric-keys.ts';
import { computeRewardMetrics, type ScoredSample } from './reward-metrics.ts';

/** One line of metrics.jsonl: the step and flat metric values (null where a value was not finite). */
export type MetricsRecord = { step: number } & Record<string, number | string | null>;

/** Everything the controller knows about a finished step. */
export interface StepMetricsInput {
  step: number;
  epoch: number;
  samples?: readonly ScoredSample[];
  lengths?: LengthInput;
  /** Stage timers in seconds, keyed by stage (`gen`, `reward`, `old_log_prob`, `adv`, `update_actor`, `step`, ...). */
  timingS?: Readonly<Record<string, number>>;
  tokens?: TokenCounts;
  /** Metrics computed elsewhere, already under their verl names (`actor/pg_loss`, `actor/entropy`, `val-core/...`). */
  scalars?: Readonly<Record<string, number | string | null | undefined>>;
}

/**
 * Builds one step's record: step/epoch, reward, length and timing metrics,
 * then the pass-through scalars (which win on a clash, so the controller can
 * override). Non-finite numbers become null so the line stays valid JSON.
 */
export function buildStepMetrics(input: StepMetricsInput): MetricsRecord {
  const merged: Record<string, number | string | null | undefined> = {
    [MetricKey.GlobalStep]: input.step,
    [MetricKey.Epoch]: input.epoch,
    ...(input.samples === undefined ? {} : computeRewardMetrics(input.samples)),
    ...(input.lengths === undefined ? {} : computeLengthMetrics(input.lengths)),
    ...(input.timingS === undefined ? {} : computeTimingMetrics(input.timingS, input.tokens)),
    ...input.scalars,
  };
  const record: MetricsRecord = { step: input.step };
  for (const [key, value] of Object.entries(merged)) {
    if (value === undefined || key === 'step') continue;
    record[key] = typeof value === 'number' && !Number.isFinite(value) ? null : value;
  }
  return record;
}
