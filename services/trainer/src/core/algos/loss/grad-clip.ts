import { at, invalid } from '../types.ts';

/** Outcome of {@link clipGradNorm}. */
export interface GradClipResult {
  /** Global norm before clipping (verl reports it as actor/grad_norm). */
  readonly totalNorm: number;
  /** Factor the gradients were multiplied by: min(1, maxNorm / (totalNorm + 1e-6)); 1 when skipped. */
  readonly clipCoef: number;
  /** The norm is NaN or infinite: verl zeroes the gradients and skips the optimizer step. */
  readonly skipStep: boolean;
}

/**
 * torch `clip_grad_norm_` as verl's `_optimizer_step` uses it (grad_clip, default 1.0): the global
 * norm over all tensors (L2 by default, or max-abs with normType Infinity), then every gradient is
 * scaled in place by min(1, maxNorm / (norm + 1e-6)). When the norm is not finite the gradients are
 * left untouched and `skipStep` is set; torch would scale them by NaN/0 but verl discards them anyway.
 */
export function clipGradNorm(grads: ReadonlyArray<Float32Array>, maxNorm: number, normType = 2): GradClipResult {
  if (!(maxNorm > 0)) throw invalid('maxNorm', `must be positive, got ${maxNorm}`);
  if (normType !== 2 && normType !== Infinity) throw invalid('normType', 'only 2 and Infinity are supported');
  if (grads.length === 0) return { totalNorm: 0, clipCoef: 1, skipStep: false };
  let acc = 0;
  for (const g of grads) {
    for (let i = 0; i < g.length; i++) {
      const v = at(g, i);
      if (normType === 2) acc += v * v;
      // Math.max propagates NaN, so a NaN gradient yields a NaN norm as in torch.
      else acc = Math.max(acc, Math.abs(v));
    }
  }
  const totalNorm = normType === 2 ? Math.sqrt(acc) : acc;
  if (!Number.isFinite(totalNorm)) return { totalNorm, clipCoef: 1, skipStep: true };
  const clipCoef = Math.min(maxNorm / (totalNorm + 1e-6), 1);
  for (const g of grads) for (let i = 0; i < g.length; i++) g[i] = at(g, i) * clipCoef;
  return { totalNorm, clipCoef, skipStep: false };
}
