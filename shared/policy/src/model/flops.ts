// Analytic FLOP counts of the policy's workloads, for benchmarks that report
// achieved FLOP/s. Only matrix products are counted (2·m·k·n each): the
// projections (k and v are nKvHeads·headDim wide under grouped-query
// attention), attention's QK^T and AV over the padded key lengths actually
// computed, and the output head. Norms (q/k norms included), RoPE, biases,
// softmax and other elementwise work are left out (about 1% of the FLOPs at
// the demo shape), and the embedding counts as a lookup (0 FLOPs) however it
// is implemented.
import type { ModelConfig } from './model-config.ts';

/** The parts of a model config that fix its FLOPs. */
export type FlopShape = Pick<ModelConfig, 'vocabSize' | 'dModel' | 'nLayers' | 'dFF' | 'nHeads' | 'nKvHeads' | 'headDim'>;

/** One full-sequence pass: `rows` x `queries` tokens attending over `keys` columns, the head applied to `headColumns` per row. */
export interface PassShape {
  rows: number;
  queries: number;
  keys: number;
  headColumns: number;
}

/**
 * FLOPs of one forward pass. Per token and layer, with Q = nHeads·headDim and
 * K = nKvHeads·headDim: q 2·D·Q, k and v 2·D·K each, o 2·Q·D, gate+up 2·D·2F,
 * down 2·F·D; attention 2·keys·Q twice (every query head scores every key).
 */
export function forwardFlops(cfg: FlopShape, pass: PassShape): number {
  const { vocabSize: v, dModel: d, nLayers: l, dFF: f } = cfg;
  const q = cfg.nHeads * cfg.headDim;
  const kv = cfg.nKvHeads * cfg.headDim;
  const tokens = pass.rows * pass.queries;
  const projections = 2 * d * (q + 2 * kv + 2 * f) + 2 * q * d + 2 * f * d;
  const attention = 2 * 2 * pass.keys * q;
  return l * tokens * (projections + attention) + 2 * pass.rows * pass.headColumns * d * v;
}

/** Teacher forcing over `[prompt | response]` padded to `promptWidth + responseWidth`: the head runs on the response columns only. */
export function scoreFlops(cfg: FlopShape, rows: number, promptWidth: number, responseWidth: number): number {
  const t = promptWidth + responseWidth;
  return forwardFlops(cfg, { rows, queries: t, keys: t, headColumns: responseWidth });
}

/** One training step: the scoring forward plus a backward of twice its FLOPs (input and weight gradients); AdamW is elementwise. */
export function trainFlops(cfg: FlopShape, rows: number, promptWidth: number, responseWidth: number): number {
  return 3 * scoreFlops(cfg, rows, promptWidth, responseWidth);
}

/**
 * KV-cache generation of `newTokens` per row: a prefill over the padded
 * prompts (head on the last column), then `newTokens - 1` one-token steps that
 * each attend over the whole cache `capacity` (the kernels do not skip unused columns).
 */
export function generateFlops(cfg: FlopShape, rows: number, promptWidth: number, capacity: number, newTokens: number): number {
  if (newTokens <= 0) return 0;
  const prefill = forwardFlops(cfg, { rows, queries: promptWidth, keys: promptWidth, headColumns: 1 });
  const step = forwardFlops(cfg, { rows, queries: 1, keys: capacity, headColumns: 1 });
  return prefill + (newTokens - 1) * step;
}
