// Shared pieces of the jax-js policy losses: verl's agg_loss and masked means over [B, R]
// tensors, stop-gradient, and a rank helper for data-dependent top-k selections. jax-js ops
// consume their inputs (move semantics), so every helper consumes what it is given.
import { lax, np, type Tensor } from '@rl/policy';
import type { LossAggMode } from './modes.ts';
import type { PgContext } from './types.ts';

/**
 * verl agg_loss over [B, R] with a 0/1 mask; rows whose mask is empty (filler rows) do not count
 * as sequences. `scale` is the seq-mean-token-sum-norm divisor (loss_scale_factor).
 */
export function aggregate(mat: Tensor, mask: Tensor, mode: LossAggMode, scale: number): Tensor {
  // An all-padding micro-batch gives 0 instead of verl's 0/0 (it only happens on filler batches).
  if (mode === 'token-mean') return np.sum(mat.mul(mask.ref)).div(np.maximum(np.sum(mask), 1));
  if (mode === 'seq-mean-token-sum-norm') return np.sum(mat.mul(mask)).div(scale);
  const rowTokens = np.sum(mask.ref, 1);
  const rows = np.maximum(np.sum(np.greater(rowTokens.ref, 0).astype(np.float32)), 1);
  let perRow = np.sum(mat.mul(mask), 1);
  if (mode === 'seq-mean-token-mean') perRow = perRow.div(rowTokens.add(1e-8));
  else rowTokens.dispose();
  return np.sum(perRow).div(rows);
}

/** verl masked_mean over every element: sum(x * m) / (sum(m) + 1e-8). */
export function maskedMean(x: Tensor, mask: Tensor): Tensor {
  return np.sum(x.mul(mask.ref)).div(np.sum(mask).add(1e-8));
}

/** verl masked_mean(axis=-1): one value per row. */
export function rowMaskedMean(x: Tensor, mask: Tensor): Tensor {
  return np.sum(x.mul(mask.ref), 1).div(np.sum(mask, 1).add(1e-8));
}

/** verl masked_sum(axis=-1). */
export function rowMaskedSum(x: Tensor, mask: Tensor): Tensor {
  return np.sum(x.mul(mask), 1);
}

/** `.detach()`: the value without a gradient path. */
export const sg = (x: Tensor): Tensor => lax.stopGradient(x);

/** torch.abs: the gradient is sign(x), 0 at 0. */
export const torchAbs = (x: Tensor): Tensor => x.ref.mul(sg(np.sign(x)));

/** torch.maximum: on a tie each side gets half the gradient. */
export function torchMaximum(a: Tensor, b: Tensor): Tensor {
  const greater = np.greater(a.ref, b.ref);
  const less = np.less(a.ref, b.ref);
  const tie = a.ref.add(b.ref).mul(0.5);
  return np.where(greater, a, np.where(less, b, tie));
}

/** torch.minimum: on a tie each side gets half the gradient. */
export const torchMinimum = (a: Tensor, b: Tensor): Tensor => torchMaximum(a.mul(-1), b.mul(-1)).mul(-1);

/** Per-token input: verl's rollout_is_weights (decoupled rollout correction), constants multiplied into a mode's per-token loss. */
export const ROLLOUT_IS_WEIGHTS = 'rollout_is_weights';

/** `pg` times the batch's rollout IS weights when it carries them (verl: pg_losses * rollout_is_weights); consumes `pg`. */
export function isWeighted(ctx: PgContext, pg: Tensor): Tensor {
  return ctx.hasInput(ROLLOUT_IS_WEIGHTS) ? pg.mul(ctx.input(ROLLOUT_IS_WEIGHTS)) : pg;
}

/** A boolean tensor as 0/1 float32. */
export const f32 = (b: Tensor): Tensor => b.astype(np.float32);

/** A [B] per-row tensor broadcast over the tokens of its row. */
export const perToken = (row: Tensor): Tensor => np.expandDims(row, -1);

/** A scalar constant tensor (for metrics verl reports as a fixed 0). */
export const constant = (v: number): Tensor => np.array(v);

/**
 * The position of each element of `x` (any shape, flattened row-major) when sorted ascending,
 * ties in index order (jax-js argsort is stable): rank < k selects the k smallest.
 */
export function ascendingRank(x: Tensor): Tensor {
  const shape = x.shape;
  const order = np.argsort(np.reshape(x, [-1]));
  return np.reshape(np.argsort(order), shape);
}

/**
 * `table[count]` for an integer-valued float32 count in [0, table.length): a count that verl
 * computes in Python double precision (int(ratio * n)) is tabulated in JS and looked up in-trace.
 */
export function lookup(table: readonly number[], count: Tensor): Tensor {
  return np.take(np.array([...table]), np.round(count).astype(np.int32));
}
