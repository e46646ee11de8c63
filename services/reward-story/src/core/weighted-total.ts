import { AppError, ErrorCode } from '@rl/service-kit/core';
import { COMPONENTS, type Component, type Weights } from './weights.ts';

/** Component values; undefined for a component that does not apply to the item. */
export type ComponentValues = Record<Component, number | undefined>;

/** The total and the weights that produced it. */
export interface WeightedTotal {
  total: number;
  /** Weights renormalised over the components that apply (they sum to 1); 0 for the others. */
  weightsUsed: Weights;
}

/**
 * total = Σ w_c·x_c / Σ w_c over the components c that apply. Renormalising
 * keeps every total in [0, 1] and comparable whether or not a batch carries
 * signals, references or format specs. Throws `invalid_params` when every
 * component that applies has weight 0 (nothing would be measured).
 */
export function weightedTotal(values: ComponentValues, weights: Readonly<Weights>): WeightedTotal {
  let sum = 0;
  let weighted = 0;
  for (const c of COMPONENTS) {
    const x = values[c];
    if (x === undefined) continue;
    sum += weights[c];
    weighted += weights[c] * x;
  }
  if (!(sum > 0)) {
    const applied = COMPONENTS.filter((c) => values[c] !== undefined);
    throw new AppError(
      ErrorCode.InvalidParams,
      `params.weights: every component that applies to this item has weight 0 (applies: ${applied.join(', ') || 'none'})`,
      { details: { field: 'params.weights', applies: applied } },
    );
  }
  const weightsUsed = Object.fromEntries(COMPONENTS.map((c) => [c, values[c] === undefined ? 0 : weights[c] / sum])) as Weights;
  return { total: weighted / sum, weightsUsed };
}
