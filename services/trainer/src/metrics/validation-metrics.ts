import { createRng } from '@rl/service-kit/core';
import { mean, numericValue, summarize } from './stats.ts';

/** One validation response. */
export interface ValidationSample {
  data_source: string;
  /** Prompt id: responses to the same prompt share it (verl `uid`). */
  uid: string | number;
  /** The reward; errored items should be passed as 0 or left out by the caller. */
  score: number;
  /** Scorer diagnostics: numeric/boolean keys become variables, `pred` drives majority voting. */
  extra?: Record<string, unknown> | null;
}

/** Options of {@link computeValidationMetrics}. */
export interface ValidationMetricsOptions {
  /** Bootstrap resamples for best@n / worst@n / maj@n. @default 1000 (verl) */
  bootstrap?: number;
  /** Bootstrap seed. @default 42 (verl) */
  seed?: number;
}

/** verl gen_ns: 2, 4, 8, ... below n, then n itself. */
function sampleSizes(n: number): number[] {
  if (n <= 1) return [];
  const out: number[] = [];
  for (let k = 2; k < n; k *= 2) out.push(k);
  out.push(n);
  return out;
}

/** verl calc_maj_val: the value of the first response whose prediction won the vote (ties: first seen). */
function majorityValue(vals: readonly number[], preds: readonly string[], picks: readonly number[]): number {
  const groups = new Map<string, number[]>();
  for (const i of picks) {
    const key = preds[i] as string;
    let g = groups.get(key);
    if (g === undefined) groups.set(key, (g = []));
    g.push(vals[i] as number);
  }
  let best: number[] = [];
  for (const g of groups.values()) if (g.length > best.length) best = g;
  return best[0] as number;
}

/** verl bootstrap_metric: mean and std over resamples (with replacement) of size n. */
function bootstrap(count: number, n: number, reducers: Array<(picks: number[]) => number>, rounds: number, seed: number): Array<[number, number]> {
  const rng = createRng(seed);
  const draws = Array.from({ length: rounds }, () => Array.from({ length: n }, () => rng.int(0, count - 1)));
  return reducers.map((reduce) => {
    const s = summarize(draws.map(reduce)) as { mean: number; std: number };
    return [s.mean, s.std];
  });
}

function metricsOf(vals: number[], preds: string[] | undefined, rounds: number, seed: number): Record<string, number> {
  const n = vals.length;
  const out: Record<string, number> = { [`mean@${n}`]: mean(vals) };
  if (n <= 1) return out;
  out[`std@${n}`] = (summarize(vals) as { std: number }).std;
  for (const k of sampleSizes(n)) {
    const [[bestMean, bestStd], [worstMean, worstStd]] = bootstrap(
      n,
      k,
      [(p) => Math.max(...p.map((i) => vals[i] as number)), (p) => Math.min(...p.map((i) => vals[i] as number))],
      rounds,
      seed,
    ) as [[number, number], [number, number]];
    Object.assign(out, { [`best@${k}/mean`]: bestMean, [`best@${k}/std`]: bestStd, [`worst@${k}/mean`]: worstMean, [`worst@${k}/std`]: worstStd });
    if (preds !== undefined) {
      const [[majMean, majStd]] = bootstrap(n, k, [(p) => majorityValue(vals, preds, p)], rounds, seed) as [[number, number]];
      Object.assign(out, { [`maj@${k}/mean`]: majMean, [`maj@${k}/std`]: majStd });
    }
  }
  return out;
}

/**
 * verl `process_validation_metrics` + `_val_metrics_update`: per data source and
 * variable (`reward` = score, plus every numeric extra such as `acc`), mean@n,
 * std@n and bootstrapped best/worst/maj@k per prompt, averaged over prompts. The
 * core variable (`acc` if present, else `reward`) at the largest n goes under
 * `val-core/<ds>/<var>/<metric>`, the rest under `val-aux/...`.
 * Bootstraps use our seeded RNG, so best/worst/maj match verl in distribution, not digit for digit.
 */
export function computeValidationMetrics(samples: readonly ValidationSample[], options: ValidationMetricsOptions = {}): Record<string, number> {
  const { bootstrap: rounds = 1000, seed = 42 } = options;
  // data_source → uid → variable → values (and preds per uid).
  const tree = new Map<string, Map<string, { vars: Map<string, number[]>; preds: string[]; hasPred: boolean }>>();
  for (const s of samples) {
    let uids = tree.get(s.data_source);
    if (uids === undefined) tree.set(s.data_source, (uids = new Map()));
    const uidKey = String(s.uid);
    let node = uids.get(uidKey);
    if (node === undefined) uids.set(uidKey, (node = { vars: new Map([['reward', []]]), preds: [], hasPred: false }));
    node.vars.get('reward')?.push(s.score);
    for (const [key, value] of Object.entries(s.extra ?? {})) {
      const v = numericValue(value);
      if (v === undefined || key === 'reward') continue;
      let col = node.vars.get(key);
      if (col === undefined) node.vars.set(key, (col = []));
      col.push(v);
    }
    node.preds.push(String(s.extra?.['pred'] ?? ''));
    node.hasPred ||= s.extra !== null && s.extra !== undefined && 'pred' in s.extra;
  }
  const out: Record<string, number> = {};
  for (const [source, uids] of tree) {
    const perVar = new Map<string, Map<string, number[]>>();
    for (const node of uids.values()) {
      for (const [name, vals] of node.vars) {
        const metrics = metricsOf(vals, node.hasPred && vals.length === node.preds.length ? node.preds : undefined, rounds, seed);
        let byMetric = perVar.get(name);
        if (byMetric === undefined) perVar.set(name, (byMetric = new Map()));
        for (const [metric, value] of Object.entries(metrics)) {
          let list = byMetric.get(metric);
          if (list === undefined) byMetric.set(metric, (list = []));
          list.push(value);
        }
      }
    }
    const coreVar = perVar.has('acc') ? 'acc' : 'reward';
    for (const [name, byMetric] of perVar) {
      const nMax = Math.max(...[...byMetric.keys()].map((m) => Number(m.split('@').at(-1)?.split('/')[0])));
      for (const [metric, values] of byMetric) {
        const core = name === coreVar && /^(mean|maj|best)/.test(metric) && metric.includes(`@${nMax}`);
        out[`${core ? 'val-core' : 'val-aux'}/${source}/${name}/${metric}`] = mean(values);
      }
    }
  }
  return out;
}
