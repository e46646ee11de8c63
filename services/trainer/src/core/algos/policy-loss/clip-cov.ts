import { maskedMean, maskSum } from '../masked.ts';
import { aggregatePolicyLoss, assertPolicyLossInput, clamp, clipRange, detached, greaterWeight, isWeight, passes } from './common.ts';
import type { PolicyLossFnInput, PolicyLossFnResult } from './types.ts';
import { at, invalid } from '../types.ts';

/** verl clip_cov: clip_num = max(int(clip_cov_ratio * mask.sum()), 1) (Python int() truncates). */
export const clipCovCount = (ratio: number, maskTotal: number): number => Math.max(Math.trunc(ratio * maskTotal), 1);

/**
 * The tokens clip_cov detaches: among the candidates (lb < cov < ub on valid tokens whose PPO clip
 * is not active), `count` chosen uniformly at random. verl draws torch.randperm over the candidate
 * list from the global torch generator; here every token gets one key from `keys` (row-major) and
 * the candidates with the smallest keys win (lower index on equal keys). Both choose a uniformly
 * random subset of size min(count, #candidates); the jax-js twin uses the same keys.
 */
export function selectByKeys(candidates: Uint8Array, keys: ArrayLike<number>, count: number): Uint8Array {
  const idx: number[] = [];
  for (let i = 0; i < candidates.length; i++) if (candidates[i] === 1) idx.push(i);
  idx.sort((a, b) => at(keys, a) - at(keys, b) || a - b);
  const chosen = new Uint8Array(candidates.length);
  for (const i of idx.slice(0, count)) chosen[i] = 1;
  return chosen;
}

/**
 * verl `compute_policy_loss_clip_cov` (loss_mode "clip_cov", https://arxiv.org/abs/2505.22617).
 * With r = exp(logp - old) (not clamped), pg1 = -A r, pg2 = -A clamp(r, 1 - low, 1 + high) and
 * cov = (A - masked_mean(A)) (logp - masked_mean(logp)), a random set of clip_num tokens with
 * clip_cov_lb < cov < clip_cov_ub (valid, and not already clipped: pg2 > pg1) gets corr = 0:
 *   loss = max(pg1, pg2) * corr [* IS weight], aggregated with loss_agg_mode (no dual clip).
 * `rng` supplies one uniform key per token (row-major), drawn whether or not the token is a candidate.
 * Metrics: pg_clipfrac = masked mean of [corr == 0], ppo_kl = masked mean of -(logp - old).
 */
export function computePolicyLossClipCov(input: PolicyLossFnInput): PolicyLossFnResult {
  assertPolicyLossInput(input);
  const { oldLogProb, logProb, advantages, responseMask, rng } = input;
  const ratio = input.clipCovRatio ?? 0.0002;
  const lb = input.clipCovLb ?? 1.0;
  const ub = input.clipCovUb ?? 5.0;
  if (!(ratio > 0)) throw invalid('clipCovRatio', `clip_cov_ratio should be larger than 0, got ${ratio}`);
  if (rng === undefined) throw invalid('rng', 'clip_cov chooses tokens at random and needs a seeded rng');
  const { low, high } = clipRange(input);
  const n = logProb.length;
  // The choice of tokens is boolean (no gradient); it reads the detached log-probs.
  const sgLogProb = detached(input);
  const meanAdv = maskedMean(advantages, responseMask);
  const meanLogp = maskedMean(sgLogProb, responseMask);
  const candidates = new Uint8Array(n);
  const keys = new Float64Array(n);
  const pg1 = new Float64Array(n);
  const pg2 = new Float64Array(n);
  const ratios = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    keys[i] = rng.next();
    const a = at(advantages, i);
    const r = Math.exp(at(logProb, i) - at(oldLogProb, i));
    ratios[i] = r;
    pg1[i] = -a * r;
    pg2[i] = -a * clamp(r, 1 - low, 1 + high);
    const valid = at(responseMask, i) > 0;
    const sgRatio = Math.exp(at(sgLogProb, i) - at(oldLogProb, i));
    const clipByOrigin = -a * clamp(sgRatio, 1 - low, 1 + high) > -a * sgRatio && valid;
    // verl sets cov to -inf on masked and already-clipped tokens; -inf is never > lb.
    const cov = valid && !clipByOrigin ? (a - meanAdv) * (at(sgLogProb, i) - meanLogp) : -Infinity;
    candidates[i] = cov < ub && cov > lb && valid ? 1 : 0;
  }
  const chosen = selectByKeys(candidates, keys, clipCovCount(ratio, maskSum(responseMask)));
  const losses = new Float64Array(n);
  const dLocal = new Float64Array(n);
  const cut = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const corr = chosen[i] === 1 ? 0 : 1;
    const a = at(advantages, i);
    const r = at(ratios, i);
    const w1 = greaterWeight(at(pg1, i), at(pg2, i));
    const dLoss = w1 * -a + (1 - w1) * -a * passes(r, 1 - low, 1 + high);
    const w = isWeight(input, i);
    losses[i] = Math.max(at(pg1, i), at(pg2, i)) * corr * w;
    dLocal[i] = dLoss * r * corr * w;
    cut[i] = 1 - corr;
  }
  const { pgLoss, dLogProb } = aggregatePolicyLoss(input, losses, dLocal, input.lossAggMode ?? 'token-mean');
  const negKl = Float64Array.from({ length: n }, (_, i) => -(at(sgLogProb, i) - at(oldLogProb, i)));
  return {
    pgLoss,
    dLogProb,
    metrics: { 'actor/pg_clipfrac': maskedMean(cut, responseMask), 'actor/ppo_kl': maskedMean(negKl, responseMask) },
  };
}
