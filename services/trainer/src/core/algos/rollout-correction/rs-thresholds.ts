import { invalid } from '../types.ts';

/** verl SUPPORTED_ROLLOUT_RS_OPTIONS, in the order verl documents them. */
export const ROLLOUT_RS_OPTIONS = [
  'token_k1',
  'token_k2',
  'token_k3',
  'seq_sum_k1',
  'seq_sum_k2',
  'seq_sum_k3',
  'seq_mean_k1',
  'seq_mean_k2',
  'seq_mean_k3',
  'seq_max_k2',
  'seq_max_k3',
] as const;
/** One rejection-sampling criterion. */
export type RolloutRsOption = (typeof ROLLOUT_RS_OPTIONS)[number];

/** Bounds of one option: k1 options have ratio bounds (lower, upper), the others an upper bound only. */
export interface RsBounds {
  readonly lower: number | null;
  readonly upper: number;
}

// Python float(): accepts inf/infinity spellings that JS Number() does not.
function parseFloatLike(spec: string, option: string): number {
  const s = spec.trim().toLowerCase();
  const v = /^[+-]?(inf|infinity)$/.test(s) ? (s.startsWith('-') ? -Infinity : Infinity) : s === '' ? Number.NaN : Number(s);
  if (Number.isNaN(v)) throw invalid('rolloutRsThreshold', `invalid numeric threshold '${spec}' for option '${option}'`);
  return v;
}

/**
 * verl `compute_rollout_rejection_mask`'s option list: comma separated, trimmed, duplicates dropped
 * (first occurrence kept), each one of {@link ROLLOUT_RS_OPTIONS}.
 */
export function parseRolloutRsOptions(spec: string): RolloutRsOption[] {
  const out: RolloutRsOption[] = [];
  for (const raw of spec.split(',')) {
    const opt = raw.trim();
    if (opt === '') continue;
    if (!(ROLLOUT_RS_OPTIONS as readonly string[]).includes(opt)) throw invalid('rolloutRs', `invalid rollout_rs option: ${opt}`);
    if (!out.includes(opt as RolloutRsOption)) out.push(opt as RolloutRsOption);
  }
  if (out.length === 0) throw invalid('rolloutRs', 'rollout_rs must contain at least one valid option');
  return out;
}

/**
 * verl `_parse_rollout_rs_thresholds`: one spec shared by every option or one per option. A k1
 * option takes "lower_upper" ratio bounds, or a single upper bound whose reciprocal is the lower
 * one; the other options take one positive upper bound without "_".
 */
export function parseRolloutRsThresholds(options: readonly RolloutRsOption[], spec: string | number): Map<RolloutRsOption, RsBounds> {
  let specs =
    typeof spec === 'number'
      ? [String(spec)]
      : spec
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '');
  if (specs.length === 0) throw invalid('rolloutRsThreshold', 'rollout_rs_threshold must contain at least one threshold value');
  if (specs.length !== 1 && specs.length !== options.length) {
    throw invalid('rolloutRsThreshold', `expected one threshold shared by all options or exactly ${options.length}`);
  }
  if (specs.length === 1) specs = options.map(() => specs[0] as string);
  const out = new Map<RolloutRsOption, RsBounds>();
  options.forEach((option, j) => {
    const s = specs[j] as string;
    if (option.endsWith('k1')) {
      const cut = s.indexOf('_');
      const upper = parseFloatLike(cut >= 0 ? s.slice(cut + 1) : s, option);
      const lower = cut >= 0 ? parseFloatLike(s.slice(0, cut), option) : 1 / upper;
      if (lower <= 0 || upper <= 0) throw invalid('rolloutRsThreshold', `thresholds for option '${option}' must be positive, got ${s}`);
      out.set(option, { lower, upper });
    } else {
      if (s.includes('_')) throw invalid('rolloutRsThreshold', `option '${option}' takes a single upper bound without '_', got '${s}'`);
      const upper = parseFloatLike(s, option);
      if (upper <= 0) throw invalid('rolloutRsThreshold', `threshold for option '${option}' must be positive, got ${s}`);
      out.set(option, { lower: null, upper });
    }
  });
  return out;
}
