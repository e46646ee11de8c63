import { maskedMean } from '../masked.ts';
import { aggregatePolicyLoss, assertPolicyLossInput, detached, isWeight } from './common.ts';
import type { PolicyLossFnInput, PolicyLossFnResult } from './types.ts';
import { torchTopkIndices } from './torch-topk.ts';
import { at, invalid } from '../types.ts';

/**
 * The flat token indices kl_cov penalises: over the valid tokens (mask > 0) in row-major order,
 * cov = (A - mean A) (logp - mean logp) with plain means over those tokens, and the
 * k = max(1, int(n_valid * kl_cov_ratio)) largest by torch.topk's CPU rules (ties included;
 * cov is rounded to float32 as torch holds it). No valid token selects nothing.
 */
export function selectKlCovTokens(advantages: ArrayLike<number>, logProb: ArrayLike<number>, mask: ArrayLike<number>, ratio: number): number[] {
  const valid: number[] = [];
  for (let i = 0; i < mask.length; i++) if (at(mask, i) > 0) valid.push(i);
  if (valid.length === 0) return [];
  let advMean = 0;
  let logpMean = 0;
  for (const i of valid) {
    advMean += at(advantages, i);
    logpMean += at(logProb, i);
  }
  advMean = Math.fround(advMean / valid.length);
  logpMean = Math.fround(logpMean / valid.length);
  const cov = valid.map((i) => Math.fround(Math.fround(at(advantages, i) - advMean) * Math.fround(at(logProb, i) - logpMean)));
  const k = Math.max(1, Math.trunc(valid.length * ratio));
  // torch.topk raises when k exceeds the number of values (a ratio above 1).
  if (k > valid.length) throw invalid('klCovRatio', `selects ${k} of ${valid.length} valid tokens (torch.topk: k out of range)`);
  return torchTopkIndices(cov, k).map((j) => valid[j] as number);
}

/**
 * verl `compute_policy_loss_kl_cov` (loss_mode "kl_cov", https://arxiv.org/abs/2505.22617). With
 * d = logp - old (not clamped) and r = exp(d): loss = -A r on every token, plus ppo_kl_coef * |d|
 * on the tokens {@link selectKlCovTokens} picks [* IS weight], aggregated with loss_agg_mode.
 * The selection is computed on detached values. |d| has gradient sign(d) (0 at 0).
 * Metrics: only actor/ppo_kl, which here is the masked mean of |d|.
 */
export function computePolicyLossKlCov(input: PolicyLossFnInput): PolicyLossFnResult {
  assertPolicyLossInput(input);
  const { oldLogProb, logProb, advantages, responseMask } = input;
  const ratio = input.klCovRatio ?? 0.0002;
  const coef = input.ppoKlCoef ?? 0.1;
  if (!(ratio > 0)) throw invalid('klCovRatio', `kl_cov_ratio should be larger than 0, got ${ratio}`);
  const n = logProb.length;
  const penalised = new Uint8Array(n);
  for (const i of selectKlCovTokens(advantages, detached(input), responseMask, ratio)) penalised[i] = 1;
  const losses = new Float64Array(n);
  const dLocal = new Float64Array(n);
  const absKl = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const a = at(advantages, i);
    const d = at(logProb, i) - at(oldLogProb, i);
    const r = Math.exp(d);
    const w = isWeight(input, i);
    const extra = penalised[i] === 1;
    losses[i] = (-a * r + (extra ? coef * Math.abs(d) : 0)) * w;
    dLocal[i] = (-a * r + (extra ? coef * Math.sign(d) : 0)) * w;
    absKl[i] = Math.abs(d);
  }
  const { pgLoss, dLogProb } = aggregatePolicyLoss(input, losses, dLocal, input.lossAggMode ?? 'token-mean');
  return { pgLoss, dLogProb, metrics: { 'actor/ppo_kl': maskedMean(absKl, responseMask) } };
}
