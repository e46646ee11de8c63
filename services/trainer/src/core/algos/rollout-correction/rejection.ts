import { maskedMean, maskedMeanRows } from '../masked.ts';
import { computeRsMetrics } from './rs-metrics.ts';
import { parseRolloutRsOptions, parseRolloutRsThresholds, type RolloutRsOption } from './rs-thresholds.ts';
import { rowCounts, rowMaskedSums } from './stats.ts';
import { at, invalid, type Mask, type Shape } from '../types.ts';

/** Inputs of {@link computeRolloutRejectionMask}. */
export interface RolloutRejectionInput {
  readonly shape: Shape;
  /** log(pi_train / pi_rollout) per token. */
  readonly logRatio: ArrayLike<number>;
  readonly mask: Mask;
  /** Comma-separated criteria, e.g. "token_k1,seq_mean_k3". */
  readonly rolloutRs: string;
  /** One spec per criterion or one shared: "lower_upper" or an upper bound for k1, an upper bound otherwise. */
  readonly rolloutRsThreshold: string | number | null;
}

/** Per-token value of one divergence estimator of the clamped log-ratio. */
function tokenStat(kind: 'k1' | 'k2' | 'k3', lr: number): number {
  const x = Math.min(Math.max(lr, -20), 20);
  return kind === 'k1' ? -x : kind === 'k2' ? 0.5 * x * x : Math.exp(x) - 1 - x;
}

/** The per-row statistic of a sequence option (masked sum, masked mean, or masked max with 0 for empty rows). */
function rowStat(option: RolloutRsOption, stat: Float64Array, mask: Mask, shape: Shape): Float64Array {
  if (option.startsWith('seq_sum')) return rowMaskedSums(stat, mask, shape.batchSize, shape.seqLen);
  if (option.startsWith('seq_mean')) return maskedMeanRows(stat, mask, shape);
  const out = new Float64Array(shape.batchSize);
  for (let b = 0; b < shape.batchSize; b++) {
    let v = -Infinity;
    for (let t = 0; t < shape.seqLen; t++) if (at(mask, b * shape.seqLen + t) !== 0) v = Math.max(v, at(stat, b * shape.seqLen + t));
    out[b] = v === -Infinity ? 0 : v;
  }
  return out;
}

/**
 * verl `compute_rollout_rejection_mask`: every criterion must pass for a token to stay. k1 keeps
 * log(lower) <= stat <= log(upper) with stat = -clamp(log r); k2 and k3 keep stat <= upper.
 * Sequence criteria (seq_sum / seq_mean / seq_max of the token statistic) keep or drop whole rows.
 * Returns mask * keep and the unprefixed metrics (per option, plus rollout_rs_masked_fraction and
 * rollout_rs_seq_masked_fraction). An empty batch returns the mask and no metrics.
 */
export function computeRolloutRejectionMask(input: RolloutRejectionInput): { mask: Float64Array; metrics: Record<string, number> } {
  const { shape, logRatio, mask } = input;
  if (input.rolloutRsThreshold === null) throw invalid('rolloutRsThreshold', 'rollout_rs_threshold must be provided for rejection sampling');
  const { batchSize, seqLen } = shape;
  const n = batchSize * seqLen;
  if (batchSize === 0) return { mask: Float64Array.from(mask), metrics: {} };
  const options = parseRolloutRsOptions(input.rolloutRs);
  const bounds = parseRolloutRsThresholds(options, input.rolloutRsThreshold);
  const counts = rowCounts(mask, batchSize, seqLen);
  const combined = new Float64Array(n).fill(1);
  const metrics: Record<string, number> = {};
  for (const option of options) {
    const { lower, upper } = bounds.get(option) as { lower: number | null; upper: number };
    const kind = option.slice(-2) as 'k1' | 'k2' | 'k3';
    const isK1 = kind === 'k1';
    const lowerLog = isK1 ? Math.log(lower as number) : 0;
    const limit = isK1 ? Math.log(upper) : upper;
    const tokens = Float64Array.from({ length: n }, (_, i) => tokenStat(kind, at(logRatio, i)));
    const passes = (x: number) => (isK1 ? x >= lowerLog && x <= limit : x <= limit);
    const level = option.startsWith('token') ? 'token' : 'sequence';
    const perSeq = level === 'sequence' ? rowStat(option, tokens, mask, shape) : null;
    const stat = perSeq === null ? tokens : Float64Array.from({ length: n }, (_, i) => at(perSeq, Math.floor(i / seqLen)));
    const keep = stat.map((x) => (passes(x) ? 1 : 0));
    for (let i = 0; i < n; i++) combined[i] = at(combined, i) * at(keep, i);
    Object.assign(metrics, computeRsMetrics({ option, stat, mask, shape, level, perSequence: perSeq, upper: limit, lower: lowerLog, applyLower: isK1 }));
    metrics[`rollout_rs_${option}_masked_fraction`] = maskedMean(
      keep.map((k) => 1 - k),
      mask,
    );
    let rejectedRows = 0;
    let validRows = 0;
    for (let b = 0; b < batchSize; b++) {
      if (!(at(counts, b) > 0)) continue;
      validRows++;
      let rowKept = true;
      for (let t = 0; t < seqLen; t++) if (at(keep, b * seqLen + t) === 0 && at(mask, b * seqLen + t) !== 0) rowKept = false;
      if (!rowKept) rejectedRows++;
    }
    metrics[`rollout_rs_${option}_seq_masked_fraction`] = validRows > 0 ? rejectedRows / validRows : 0;
  }
  metrics.rollout_rs_masked_fraction = maskedMean(
    combined.map((k) => 1 - k),
    mask,
  );
  let rowsWithRejects = 0;
  for (let b = 0; b < batchSize; b++) {
    let any = false;
    for (let t = 0; t < seqLen; t++) if (at(mask, b * seqLen + t) !== 0 && !(at(combined, b * seqLen + t) > 0.5)) any = true;
    if (any) rowsWithRejects++;
  }
  metrics.rollout_rs_seq_masked_fraction = rowsWithRejects / batchSize;
  return { mask: Float64Array.from({ length: n }, (_, i) => at(mask, i) * at(combined, i)), metrics };
}
