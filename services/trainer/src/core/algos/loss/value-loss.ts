import { aggLoss, type GlobalBatchInfo, type LossAggMode } from './agg-loss.ts';
import { maskedMean } from '../masked.ts';
import { assertMatrix, assertShape, at, type Floats, type Mask, type Shape } from '../types.ts';

/** Inputs of {@link computeValueLoss}. */
export interface ValueLossInput {
  readonly shape: Shape;
  /** [batch, seqLen] predictions of the critic being trained: the gradient is taken with respect to these. */
  readonly vpreds: Floats;
  /** GAE returns (targets). */
  readonly returns: Floats;
  /** Critic values at rollout time (centre of the clip window). */
  readonly values: Floats;
  readonly responseMask: Mask;
  /** verl critic `cliprange_value`. @default 0.5 in verl's critic config */
  readonly cliprangeValue: number;
  /** @default "token-mean" */
  readonly lossAggMode?: LossAggMode;
  readonly global?: GlobalBatchInfo;
}

// torch.maximum/minimum split the gradient in half on ties.
const greaterWeight = (a: number, b: number): number => (a > b ? 1 : a === b ? 0.5 : 0);

/**
 * verl `compute_value_loss`: vclip = clip_by_value(vpred, values - c, values + c);
 * vf_loss = 0.5 * agg(max((vpred - R)^2, (vclip - R)^2)); vf_clipfrac = masked mean of
 * [(vclip - R)^2 > (vpred - R)^2]. Returns dvf_loss/dvpred too.
 */
export function computeValueLoss(input: ValueLossInput): { vfLoss: number; vfClipfrac: number; dVpreds: Float32Array } {
  const { shape, vpreds, returns, values, responseMask, cliprangeValue } = input;
  assertShape(shape);
  for (const [name, m] of [
    ['vpreds', vpreds],
    ['returns', returns],
    ['values', values],
    ['responseMask', responseMask],
  ] as const) {
    assertMatrix(name, m, shape);
  }
  const n = vpreds.length;
  const losses = new Float64Array(n);
  const local = new Float64Array(n);
  const clipped = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const v = at(vpreds, i);
    const ret = at(returns, i);
    const lo = at(values, i) - cliprangeValue;
    const hi = at(values, i) + cliprangeValue;
    // verl clip_by_value is max(min(x, hi), lo), two binary ops with their own tie rules.
    const upper = Math.min(v, hi);
    const vclip = Math.max(upper, lo);
    const dVclip = greaterWeight(hi, v) * greaterWeight(upper, lo);
    const l1 = (v - ret) ** 2;
    const l2 = (vclip - ret) ** 2;
    const w1 = greaterWeight(l1, l2);
    losses[i] = Math.max(l1, l2);
    local[i] = w1 * 2 * (v - ret) + (1 - w1) * 2 * (vclip - ret) * dVclip;
    clipped[i] = l2 > l1 ? 1 : 0;
  }
  const agg = aggLoss({ shape, lossMat: losses, lossMask: responseMask, mode: input.lossAggMode ?? 'token-mean', global: input.global });
  const dVpreds = new Float32Array(n);
  for (let i = 0; i < n; i++) dVpreds[i] = 0.5 * at(agg.dLossMat, i) * at(local, i);
  return { vfLoss: 0.5 * agg.loss, vfClipfrac: maskedMean(clipped, responseMask), dVpreds };
}
