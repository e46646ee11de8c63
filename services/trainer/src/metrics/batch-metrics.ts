import { MetricKey, TIMING_PREFIX } from './metric-keys.ts';
import { mean, summarize, unbiasedVariance } from './stats.ts';

type Metrics = Record<string, number>;

/** Lengths of one batch, in tokens. */
export interface LengthInput {
  responseLengths: ArrayLike<number>;
  maxResponseLength: number;
  promptLengths?: ArrayLike<number>;
  maxPromptLength?: number;
}

function clipRatio(values: ArrayLike<number>, limit: number): number {
  let n = 0;
  for (let i = 0; i < values.length; i++) if ((values[i] as number) === limit) n++;
  return values.length === 0 ? 0 : n / values.length;
}

/**
 * verl `compute_data_metrics` length part: `response_length/{mean,max,min,clip_ratio}`
 * (clip = hit max_response_length), `response/aborted_ratio` (empty responses) and the
 * same for prompts when given.
 */
export function computeLengthMetrics(input: LengthInput): Metrics {
  const out: Metrics = {};
  const r = summarize(input.responseLengths);
  if (r !== undefined) {
    out[MetricKey.ResponseLengthMean] = r.mean;
    out[MetricKey.ResponseLengthMax] = r.max;
    out[MetricKey.ResponseLengthMin] = r.min;
    out[MetricKey.ResponseLengthClipRatio] = clipRatio(input.responseLengths, input.maxResponseLength);
    out[MetricKey.AbortedRatio] = clipRatio(input.responseLengths, 0);
  }
  if (input.promptLengths !== undefined && input.maxPromptLength !== undefined) {
    const p = summarize(input.promptLengths);
    if (p !== undefined) {
      out[MetricKey.PromptLengthMean] = p.mean;
      out[MetricKey.PromptLengthMax] = p.max;
      out[MetricKey.PromptLengthMin] = p.min;
      out[MetricKey.PromptLengthClipRatio] = clipRatio(input.promptLengths, input.maxPromptLength);
    }
  }
  return out;
}

/** Values of a [batch, seqLen] matrix where `mask` is non-zero (verl `torch.masked_select`). */
export function maskedValues(values: ArrayLike<number>, mask: ArrayLike<number>): Float64Array {
  const out: number[] = [];
  for (let i = 0; i < values.length; i++) if ((mask[i] as number) !== 0) out.push(values[i] as number);
  return Float64Array.from(out);
}

/** verl `critic/<name>/{mean,max,min}` over response tokens, e.g. name = "advantages", "returns", "values". */
export function computeTokenStats(name: string, values: ArrayLike<number>, mask: ArrayLike<number>): Metrics {
  const s = summarize(maskedValues(values, mask));
  return s === undefined ? {} : { [`critic/${name}/mean`]: s.mean, [`critic/${name}/max`]: s.max, [`critic/${name}/min`]: s.min };
}

/** verl `critic/vf_explained_var`: 1 - Var(returns - values) / (Var(returns) + 1e-5), over response tokens, unbiased variances. */
export function computeExplainedVariance(returns: ArrayLike<number>, values: ArrayLike<number>, mask: ArrayLike<number>): Metrics {
  const r = maskedValues(returns, mask);
  const v = maskedValues(values, mask);
  const diff = r.map((x, i) => x - (v[i] as number));
  const value = 1 - unbiasedVariance(diff) / (unbiasedVariance(r) + 1e-5);
  return Number.isFinite(value) ? { [MetricKey.VfExplainedVar]: value } : {};
}

/** Token counts used to normalise stage times. */
export interface TokenCounts {
  promptTokens: number;
  responseTokens: number;
}

// verl compute_timing_metrics: generation is per response token, the model passes per token overall.
const PER_RESPONSE_TOKEN = new Set(['gen']);
const PER_TOKEN = new Set(['ref', 'values', 'adv', 'update_critic', 'update_actor']);

/**
 * `timing_s/<stage>` for every timer, `timing_per_token_ms/<stage>` for the
 * model stages (verl's), and `perf/*` throughput when a `step` timer is given
 * (one worker, verl's n_gpus = 1).
 */
export function computeTimingMetrics(timingS: Readonly<Record<string, number>>, tokens?: TokenCounts): Metrics {
  const out: Metrics = {};
  for (const [stage, seconds] of Object.entries(timingS)) out[`${TIMING_PREFIX}${stage}`] = seconds;
  if (tokens === undefined) return out;
  const all = tokens.promptTokens + tokens.responseTokens;
  for (const [stage, seconds] of Object.entries(timingS)) {
    const denominator = PER_RESPONSE_TOKEN.has(stage) ? tokens.responseTokens : PER_TOKEN.has(stage) ? all : 0;
    if (denominator > 0) out[`timing_per_token_ms/${stage}`] = (seconds * 1000) / denominator;
  }
  const step = timingS['step'];
  if (step !== undefined && step > 0) {
    out[MetricKey.TotalNumTokens] = all;
    out[MetricKey.TimePerStep] = step;
    out[MetricKey.Throughput] = all / step;
  }
  return out;
}

/** Mean of a list of per-micro-batch values, as verl's reduce_metrics does for actor/critic metrics. */
export function reduceMetrics(lists: Readonly<Record<string, ArrayLike<number>>>): Metrics {
  const out: Metrics = {};
  for (const [key, values] of Object.entries(lists)) if (values.length > 0) out[key] = mean(values);
  return out;
}
