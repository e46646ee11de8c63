import { aggLoss, type GlobalBatchInfo, type LossAggMode } from '../loss/agg-loss.ts';
import { assertMatrix, assertShape, at, type Floats, type Mask, type Shape } from '../types.ts';

/** Inputs of {@link computePolicyLossGpg}. */
export interface GpgLossInput {
  readonly shape: Shape;
  readonly logProb: Floats;
  readonly advantages: Floats;
  readonly responseMask: Mask;
  /** @default "token-mean" */
  readonly lossAggMode?: LossAggMode;
  readonly global?: GlobalBatchInfo;
  readonly rolloutIsWeights?: Floats;
}

/**
 * verl `compute_policy_loss_gpg` (loss_mode "gpg"): plain policy gradient, loss = agg(-logp * A [* w]).
 * No ratio, no clipping and no metrics; dLoss/dlogp = -A * w * aggregation weight.
 */
export function computePolicyLossGpg(input: GpgLossInput): { pgLoss: number; dLogProb: Float32Array } {
  const { shape, logProb, advantages, responseMask, rolloutIsWeights } = input;
  assertShape(shape);
  assertMatrix('logProb', logProb, shape);
  assertMatrix('advantages', advantages, shape);
  assertMatrix('responseMask', responseMask, shape);
  if (rolloutIsWeights !== undefined) assertMatrix('rolloutIsWeights', rolloutIsWeights, shape);
  const n = logProb.length;
  const losses = new Float64Array(n);
  const local = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const w = rolloutIsWeights === undefined ? 1 : at(rolloutIsWeights, i);
    losses[i] = -at(logProb, i) * at(advantages, i) * w;
    local[i] = -at(advantages, i) * w;
  }
  const agg = aggLoss({ shape, lossMat: losses, lossMask: responseMask, mode: input.lossAggMode ?? 'token-mean', global: input.global });
  const dLogProb = new Float32Array(n);
  for (let i = 0; i < n; i++) dLogProb[i] = at(agg.dLossMat, i) * at(local, i);
  return { pgLoss: agg.loss, dLogProb };
}
