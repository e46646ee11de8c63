import type { KlController } from './controller.ts';
import { klPenalty, type KlPenaltyKind } from './penalty.ts';
import { maskedMeanRows } from '../masked.ts';
import { assertMatrix, assertShape, at, invalid, type Floats, type Mask, type Shape } from '../types.ts';

/** verl `compute_rewards`: token_level_scores - (old_log_prob - ref_log_prob) * kl_ratio. */
export function computeRewards(tokenLevelScores: Floats, oldLogProb: Floats, refLogProb: Floats, klRatio: number): Float32Array {
  if (oldLogProb.length !== tokenLevelScores.length) throw invalid('oldLogProb', 'length differs from tokenLevelScores');
  if (refLogProb.length !== tokenLevelScores.length) throw invalid('refLogProb', 'length differs from tokenLevelScores');
  const out = new Float32Array(tokenLevelScores.length);
  for (let i = 0; i < out.length; i++) out[i] = at(tokenLevelScores, i) - (at(oldLogProb, i) - at(refLogProb, i)) * klRatio;
  return out;
}

/** Inputs of {@link applyKlPenalty}. */
export interface ApplyKlPenaltyInput {
  readonly shape: Shape;
  readonly tokenLevelScores: Floats;
  readonly oldLogProbs: Floats;
  readonly refLogProb: Floats;
  readonly responseMask: Mask;
  /** verl `algorithm.kl_penalty`. @default "kl" */
  readonly klPenalty?: KlPenaltyKind;
}

/** Rewards after the penalty and verl's metrics (beta is the value used, before the update). */
export interface ApplyKlPenaltyResult {
  readonly tokenLevelRewards: Float32Array;
  readonly metrics: { readonly 'actor/reward_kl_penalty': number; readonly 'actor/reward_kl_penalty_coeff': number };
}

/**
 * verl ray_trainer `apply_kl_penalty` (algorithm.use_kl_in_reward): kld = kl_penalty(old, ref) * mask;
 * rewards = scores - beta * kld; current_kl = batch mean of the per-row masked mean of kld; then
 * the controller is updated with n_steps = batch size. Mutates `controller` like verl does.
 */
export function applyKlPenalty(input: ApplyKlPenaltyInput, controller: KlController): ApplyKlPenaltyResult {
  const { shape, tokenLevelScores, oldLogProbs, refLogProb, responseMask } = input;
  assertShape(shape);
  assertMatrix('tokenLevelScores', tokenLevelScores, shape);
  assertMatrix('oldLogProbs', oldLogProbs, shape);
  assertMatrix('refLogProb', refLogProb, shape);
  assertMatrix('responseMask', responseMask, shape);
  const kl = klPenalty(oldLogProbs, refLogProb, input.klPenalty ?? 'kl');
  const kld = new Float32Array(kl.length);
  for (let i = 0; i < kl.length; i++) kld[i] = at(kl, i) * at(responseMask, i);
  const beta = controller.value;
  const tokenLevelRewards = new Float32Array(kld.length);
  for (let i = 0; i < kld.length; i++) tokenLevelRewards[i] = at(tokenLevelScores, i) - beta * at(kld, i);
  const perRow = maskedMeanRows(kld, responseMask, shape);
  let currentKl = 0;
  for (const v of perRow) currentKl += v;
  // torch.mean over an empty batch is NaN; keep that rather than inventing a value.
  currentKl /= shape.batchSize;
  controller.update(currentKl, shape.batchSize);
  return {
    tokenLevelRewards,
    metrics: { 'actor/reward_kl_penalty': currentKl, 'actor/reward_kl_penalty_coeff': beta },
  };
}
