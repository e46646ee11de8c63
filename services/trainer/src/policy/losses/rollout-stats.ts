// Reductions the rollout-correction metrics need (torch conventions: unbiased std, masked max/min). Each consumes its inputs.
import { np, type Tensor } from '@rl/policy';
import { f32 } from './helpers.ts';

/** Largest value where mask != 0 (torch masked_fill(~mask, -inf).max()). */
export const maskedMax = (x: Tensor, mask: Tensor): Tensor => np.max(np.where(np.notEqual(mask, 0), x, -Infinity));

/** Smallest value where mask != 0. */
export const maskedMin = (x: Tensor, mask: Tensor): Tensor => np.min(np.where(np.notEqual(mask, 0), x, Infinity));

/** Statistics over the rows whose `valid` (0/1, [B]) is 1: torch boolean indexing then .mean() etc. */
export interface RowSubset {
  mean(v: Tensor): Tensor;
  /** Unbiased; 0 for a single row, as verl. */
  std(v: Tensor): Tensor;
  max(v: Tensor): Tensor;
  min(v: Tensor): Tensor;
  /** Share of the rows where `cond` holds. */
  fraction(cond: Tensor): Tensor;
  dispose(): void;
}

/** Builds {@link RowSubset} over a [B] 0/1 tensor (kept until dispose()). */
export function rowSubset(valid: Tensor): RowSubset {
  const count = np.sum(valid.ref);
  const mean = (v: Tensor) => np.sum(v.mul(valid.ref)).div(count.ref);
  return {
    mean,
    std: (v) => {
      const centred = v.ref.sub(mean(v));
      const variance = np.sum(np.square(centred).mul(valid.ref)).div(count.ref.sub(1));
      return np.where(np.greater(count.ref, 1), np.sqrt(variance), 0);
    },
    max: (v) => maskedMax(v, valid.ref),
    min: (v) => maskedMin(v, valid.ref),
    fraction: (cond) => mean(f32(cond)),
    dispose: () => {
      count.dispose();
      valid.dispose();
    },
  };
}
