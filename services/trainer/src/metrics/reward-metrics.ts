import { MetricKey, REWARD_PREFIX } from './metric-keys.ts';
import { numericValue, summarize } from './stats.ts';

/** One scored trajectory as the metrics see it. */
export interface ScoredSample {
  data_source: string;
  /** The reward service's score; null when the item's reward came back as an error. */
  score: number | null;
  /** Sequence reward after the in-reward KL penalty; defaults to `score` (verl `critic/rewards`). */
  reward?: number | null;
  /** The scorer's diagnostics: every numeric or boolean key becomes a per-data-source metric. */
  extra?: Record<string, unknown> | null;
}

type Metrics = Record<string, number>;

function putSummary(out: Metrics, prefix: string, values: number[], withStd: boolean): void {
  const s = summarize(values);
  if (s === undefined) return;
  out[`${prefix}/mean`] = s.mean;
  if (withStd) out[`${prefix}/std`] = s.std;
  out[`${prefix}/max`] = s.max;
  out[`${prefix}/min`] = s.min;
}

/** Numeric extra values per key, over the given samples. */
function extraColumns(samples: readonly ScoredSample[]): Map<string, number[]> {
  const columns = new Map<string, number[]>();
  for (const s of samples) {
    if (s.score === null || s.extra === null || s.extra === undefined) continue;
    for (const [key, value] of Object.entries(s.extra)) {
      const v = numericValue(value);
      if (v === undefined) continue;
      let col = columns.get(key);
      if (col === undefined) columns.set(key, (col = []));
      col.push(v);
    }
  }
  return columns;
}

/**
 * Training reward metrics of one step: verl's `critic/score/*` and
 * `critic/rewards/*` over the batch, plus ours per data source:
 * `reward/<ds>/score/{mean,std,max,min}`, `reward/<ds>/<extra key>/mean` for
 * every numeric extra (acc as 0/1), and error counts. Errored items are left
 * out of the statistics and counted instead.
 */
export function computeRewardMetrics(samples: readonly ScoredSample[]): Metrics {
  const out: Metrics = {};
  const ok = samples.filter((s) => s.score !== null);
  const scores = ok.map((s) => s.score as number);
  putSummary(out, 'critic/score', scores, true);
  putSummary(
    out,
    'critic/rewards',
    ok.map((s) => s.reward ?? (s.score as number)),
    false,
  );
  const errors = samples.length - ok.length;
  out[MetricKey.RewardErrorCount] = errors;
  if (samples.length > 0) out[MetricKey.RewardErrorRatio] = errors / samples.length;
  const acc = extraColumns(ok).get('acc');
  if (acc !== undefined) out[MetricKey.RewardAccMean] = acc.reduce((a, b) => a + b, 0) / acc.length;

  const bySource = new Map<string, ScoredSample[]>();
  for (const s of samples) {
    let list = bySource.get(s.data_source);
    if (list === undefined) bySource.set(s.data_source, (list = []));
    list.push(s);
  }
  for (const [source, list] of bySource) {
    const prefix = `${REWARD_PREFIX}${source}`;
    const good = list.filter((s) => s.score !== null);
    out[`${prefix}/count`] = list.length;
    out[`${prefix}/error_count`] = list.length - good.length;
    putSummary(
      out,
      `${prefix}/score`,
      good.map((s) => s.score as number),
      true,
    );
    for (const [key, values] of extraColumns(good)) {
      if (key === 'score') continue;
      out[`${prefix}/${key}/mean`] = values.reduce((a, b) => a + b, 0) / values.length;
    }
  }
  return out;
}
