import { z } from 'zod';
import { at, invalid, type Floats } from '../types.ts';

const BASE_KINDS = ['kl', 'k1', 'abs', 'mse', 'k2', 'low_var_kl', 'k3', 'full'] as const;

/**
 * verl `kl_penalty` / `kl_loss_type` names. A trailing "+" (e.g. "k3+") keeps the estimator's value
 * but takes the gradient of k2, 0.5 * (logp - ref)^2 (verl's straight-through trick). "full" needs
 * whole-vocabulary log-probs and is rejected, as verl raises NotImplementedError for it.
 */
export const KL_PENALTY_KINDS = [...BASE_KINDS, ...(['kl+', 'k1+', 'abs+', 'mse+', 'k2+', 'low_var_kl+', 'k3+', 'full+'] as const)] as const;
/** Schema of {@link KL_PENALTY_KINDS}. */
export const KlPenaltyKind = z.enum(KL_PENALTY_KINDS);
/** A KL estimator name. */
export type KlPenaltyKind = z.infer<typeof KlPenaltyKind>;

/** Per-token KL estimates and their derivatives with respect to `logprob` (ref held constant). */
export interface KlPenaltyResult {
  readonly kl: Float64Array;
  readonly dLogprob: Float64Array;
}

// torch.clamp passes the gradient through when min <= x <= max, inclusive.
const passes = (x: number, lo: number, hi: number): number => (x >= lo && x <= hi ? 1 : 0);

/** Value and d/dlogp of one estimator at one token. */
function estimate(kind: string, logp: number, ref: number): [number, number] {
  const diff = logp - ref;
  switch (kind) {
    case 'kl':
    case 'k1':
      return [diff, 1];
    case 'abs':
      // torch abs backward uses sign(x), which is 0 at x = 0.
      return [Math.abs(diff), Math.sign(diff)];
    case 'mse':
    case 'k2':
      return [0.5 * diff * diff, diff];
    case 'low_var_kl':
    case 'k3': {
      // Schulman's k3 = exp(ref - logp) - (ref - logp) - 1, with verl's clamps for stability.
      const raw = ref - logp;
      const kl = Math.min(Math.max(raw, -20), 20);
      const ratio = Math.exp(kl);
      const kld = ratio - kl - 1;
      const value = Math.min(Math.max(kld, -10), 10);
      return [value, passes(kld, -10, 10) * passes(raw, -20, 20) * (1 - ratio)];
    }
    default:
      throw invalid('klPenalty', `KL estimator "${kind}" is not implemented (verl raises NotImplementedError)`);
  }
}

/**
 * verl `kl_penalty(logprob, ref_logprob, kind)` elementwise, with the gradient:
 * kl/k1: logp - ref; abs: |logp - ref|; mse/k2: 0.5 (logp - ref)^2;
 * low_var_kl/k3: clamp(exp(c) - c - 1, -10, 10) with c = clamp(ref - logp, -20, 20).
 */
export function klPenalty(logprob: Floats, refLogprob: Floats, kind: KlPenaltyKind): KlPenaltyResult {
  if (logprob.length !== refLogprob.length) {
    throw invalid('refLogProb', `expected ${logprob.length} values like logProb, got ${refLogprob.length}`);
  }
  const straightThrough = kind.endsWith('+');
  const base = straightThrough ? kind.slice(0, -1) : kind;
  if (base === 'full' || !(BASE_KINDS as ReadonlyArray<string>).includes(base)) {
    throw invalid('klPenalty', `KL estimator "${kind}" is not implemented (verl raises NotImplementedError)`);
  }
  const kl = new Float64Array(logprob.length);
  const dLogprob = new Float64Array(logprob.length);
  for (let i = 0; i < logprob.length; i++) {
    const logp = at(logprob, i);
    const ref = at(refLogprob, i);
    const [value, grad] = estimate(base, logp, ref);
    kl[i] = value;
    dLogprob[i] = straightThrough ? logp - ref : grad;
  }
  return { kl, dLogprob };
}
