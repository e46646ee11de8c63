import { aggLoss } from '../loss/agg-loss.ts';
import { maskedMean } from '../masked.ts';
import type { PolicyLossFnInput, PolicyLossTensorKey, PpoClipConfig } from './types.ts';
import { assertMatrix, assertShape, at, invalid } from '../types.ts';

/**
 * Inputs of {@link computePolicyLossVanilla}: the tensors every registered loss takes and the PPO clip
 * settings, picked from {@link PolicyLossFnInput} so the two cannot drift apart.
 */
export type PolicyLossInput = Pick<PolicyLossFnInput, PolicyLossTensorKey | keyof PpoClipConfig>;

/** verl's return values of the vanilla loss, plus dLoss/dlogProb per token. */
export interface PolicyLossResult {
  readonly pgLoss: number;
  readonly pgClipfrac: number;
  readonly ppoKl: number;
  readonly pgClipfracLower: number;
  readonly dLogProb: Float32Array;
}

// torch.maximum/minimum split the gradient in half on ties; clamp passes it on the closed interval.
const greaterWeight = (a: number, b: number): number => (a > b ? 1 : a === b ? 0.5 : 0);
const passes = (x: number, lo: number, hi: number): number => (x >= lo && x <= hi ? 1 : 0);

/**
 * verl `compute_policy_loss_vanilla` (policy_loss.loss_mode "vanilla"). Per token, with
 * r = exp(clamp(logp - old, -20, 20)) and A the advantage:
 *   c1 = max(-A r, -A clamp(r, 1 - low, 1 + high));  loss = A < 0 ? min(c1, -A c) : c1,
 * aggregated with `agg_loss`. pg_clipfrac = masked mean of [clipped term > unclipped term],
 * pg_clipfrac_lower = masked mean of [c1 > -A c and A < 0], ppo_kl = masked mean of
 * -clamp(logp - old). The gradient follows torch's autograd rules, ties included.
 */
export function computePolicyLossVanilla(input: PolicyLossInput): PolicyLossResult {
  const { shape, oldLogProb, logProb, advantages, responseMask, rolloutIsWeights } = input;
  assertShape(shape);
  for (const [name, m] of [
    ['oldLogProb', oldLogProb],
    ['logProb', logProb],
    ['advantages', advantages],
    ['responseMask', responseMask],
  ] as const) {
    assertMatrix(name, m, shape);
  }
  if (rolloutIsWeights !== undefined) assertMatrix('rolloutIsWeights', rolloutIsWeights, shape);
  const clipRatio = input.clipRatio ?? 0.2;
  const low = input.clipRatioLow ?? clipRatio;
  const high = input.clipRatioHigh ?? clipRatio;
  const c = input.clipRatioC ?? 3.0;
  if (!(c > 1)) throw invalid('clipRatioC', `the dual-clip bound must be greater than 1.0, got ${c}`);

  const n = logProb.length;
  const losses = new Float64Array(n);
  const dLossDLogp = new Float64Array(n);
  const negKl = new Float64Array(n);
  const clipped = new Float64Array(n);
  const clippedLower = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const a = at(advantages, i);
    const diff = at(logProb, i) - at(oldLogProb, i);
    const logRatio = Math.min(Math.max(diff, -20), 20);
    const ratio = Math.exp(logRatio);
    const unclipped = -a * ratio;
    const clippedRatio = Math.min(Math.max(ratio, 1 - low), 1 + high);
    const clippedLoss = -a * clippedRatio;
    const c1 = Math.max(unclipped, clippedLoss);
    const w1 = greaterWeight(unclipped, clippedLoss);
    const dc1 = w1 * -a + (1 - w1) * -a * passes(ratio, 1 - low, 1 + high);
    const dual = -a * c;
    const negative = a < 0;
    const loss = negative ? Math.min(dual, c1) : c1;
    const dLoss = negative ? greaterWeight(dual, c1) * dc1 : dc1;
    const weight = rolloutIsWeights === undefined ? 1 : at(rolloutIsWeights, i);
    losses[i] = loss * weight;
    dLossDLogp[i] = weight * dLoss * ratio * passes(diff, -20, 20);
    negKl[i] = -logRatio;
    clipped[i] = clippedLoss > unclipped ? 1 : 0;
    clippedLower[i] = c1 > dual && negative ? 1 : 0;
  }
  const agg = aggLoss({ shape, lossMat: losses, lossMask: responseMask, mode: input.lossAggMode ?? 'token-mean', global: input.global });
  const dLogProb = new Float32Array(n);
  for (let i = 0; i < n; i++) dLogProb[i] = at(agg.dLossMat, i) * at(dLossDLogp, i);
  return {
    pgLoss: agg.loss,
    pgClipfrac: maskedMean(clipped, responseMask),
    ppoKl: maskedMean(negKl, responseMask),
    pgClipfracLower: maskedMean(clippedLower, responseMask),
    dLogProb,
  };
}
