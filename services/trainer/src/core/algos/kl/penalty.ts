import { z } from 'zod';
import { at, invalid, type Floats } from '../types.ts';

const BASE_KINDS = ['kl', 'k1', 'abs', 'mse', 'k2', 'low_var_kl', 'k3', 'full'] as const;

/**
 * verl `kl_penalty` / `kl_loss_type` names. A trailing "+" (e.g. "k3+") keeps the estimator's value
 * but takes the gradient of k2, 0.5 * (logp - ref)^2 (verl's straight-through trick; the KL loss
 * term of policy/losses differentiates it). "full" needs whole-vocabulary log-probs and is
 * rejected, as verl raises NotImplementedError for it.
 */
export const KL_PENALTY_KINDS = [...BASE_KINDS, ...(['kl+', 'k1+', 'abs+', 'mse+', 'k2+', 'low_var_kl+', 'k3+', 'full+'] as const)] as const;
/** Schema of {@link KL_PENALTY_KINDS}. */
export const KlPenaltyKind = z.enum(KL_PENALTY_KINDS);
/** A KL estimator name. */
export type KlPenaltyKind = z.infer<typeof KlPenaltyKind>;

/** Value of one estimator at one token. */
function estimate(kind: string, logp: number, ref: number): number {
  const diff = logp - ref;
  switch (kind) {
    case 'kl':
    case 'k1':
      return diff;
    case 'abs':
      return Math.abs(diff);
    case 'mse':
    case 'k2':
      return 0.5 * diff * diff;
    case 'low_var_kl':
    case 'k3': {
      // Schulman's k3 = exp(ref - logp) - (ref - logp) - 1, with verl's clamps for stability.
      const kl = Math.min(Math.max(ref - logp, -20), 20);
      return Math.min(Math.max(Math.exp(kl) - kl - 1, -10), 10);
    }
    default:
      throw invalid('klPenalty', `KL estimator "${kind}" is not implemented (verl raises NotImplementedError)`);
  }
}

/**
 * verl `kl_penalty(logprob, ref_logprob, kind)` elementwise, for the KL in the reward (nothing is
 * differentiated there, so a "+" name gives its base estimator's value):
 * kl/k1: logp - ref; abs: |logp - ref|; mse/k2: 0.5 (logp - ref)^2;
 * low_var_kl/k3: clamp(exp(c) - c - 1, -10, 10) with c = clamp(ref - logp, -20, 20).
 */
export function klPenalty(logprob: Floats, refLogprob: Floats, kind: KlPenaltyKind): Float64Array {
  if (logprob.length !== refLogprob.length) {
    throw invalid('refLogProb', `expected ${logprob.length} values like logProb, got ${refLogprob.length}`);
  }
  const base = kind.endsWith('+') ? kind.slice(0, -1) : kind;
  if (base === 'full' || !(BASE_KINDS as ReadonlyArray<string>).includes(base)) {
    throw invalid('klPenalty', `KL estimator "${kind}" is not implemented (verl raises NotImplementedError)`);
  }
  const kl = new Float64Array(logprob.length);
  for (let i = 0; i < logprob.length; i++) kl[i] = estimate(base, at(logprob, i), at(refLogprob, i));
  return kl;
}
