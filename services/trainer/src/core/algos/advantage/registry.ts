import { z } from 'zod';
import { computeGaeAdvantageReturn, type AdvantageResult } from './gae.ts';
import { computeGpgOutcomeAdvantage } from './gpg.ts';
import { computeGrpoOutcomeAdvantage, computeGrpoVectorizedOutcomeAdvantage, type OutcomeInput } from './grpo.ts';
import { computeGrpoPasskOutcomeAdvantage } from './grpo-passk.ts';
import { KlCtrlConfig } from '../kl/controller.ts';
import { KlPenaltyKind } from '../kl/penalty.ts';
import { computeOpoOutcomeAdvantage } from './opo.ts';
import { computeReinforcePlusPlusBaselineOutcomeAdvantage, computeReinforcePlusPlusOutcomeAdvantage } from './reinforce-plus-plus.ts';
import { computeRemaxOutcomeAdvantage } from './remax.ts';
import { computeRlooOutcomeAdvantage, computeRlooVectorizedOutcomeAdvantage } from './rloo.ts';
import { invalid, type Floats, type GroupId, type Mask, type Shape } from '../types.ts';

/** verl `AdvantageEstimator` names implemented here (not the optimal-token-baseline ones), as a non-empty tuple. */
export const ADV_ESTIMATOR_NAMES = [
  'gae',
  'grpo',
  'grpo_vectorized',
  'grpo_passk',
  'reinforce_plus_plus',
  'reinforce_plus_plus_baseline',
  'remax',
  'rloo',
  'rloo_vectorized',
  'opo',
  'gpg',
] as const;
/** Schema of {@link ADV_ESTIMATOR_NAMES}. */
export const AdvEstimatorName = z.enum(ADV_ESTIMATOR_NAMES);
/** An implemented advantage estimator name. */
export type AdvEstimatorName = z.infer<typeof AdvEstimatorName>;

/** verl `algorithm.*` (AlgoConfig) keys this core reads, with verl's defaults. */
export const AlgoConfig = z.strictObject({
  /** Discount factor. @default 1.0 */
  gamma: z.number().default(1.0),
  /** GAE lambda. @default 1.0 */
  lam: z.number().default(1.0),
  /** @default "gae" */
  adv_estimator: AdvEstimatorName.default('gae'),
  /** GRPO: divide by the group std; false gives Dr.GRPO's advantage. @default true */
  norm_adv_by_std_in_grpo: z.boolean().default(true),
  /** Subtract beta * KL(old || ref) from the token rewards. @default false */
  use_kl_in_reward: z.boolean().default(false),
  /** Estimator for the in-reward KL. @default "kl" */
  kl_penalty: KlPenaltyKind.default('kl'),
  kl_ctrl: KlCtrlConfig.prefault({}),
});
/** Parsed algorithm configuration. */
export type AlgoConfig = z.infer<typeof AlgoConfig>;

/** Everything an estimator may read; which fields are required depends on the estimator. */
export interface AdvantageInput {
  readonly shape: Shape;
  readonly tokenLevelRewards: Floats;
  readonly responseMask: Mask;
  /** verl `uid`: required by the group estimators. */
  readonly index?: ReadonlyArray<GroupId>;
  /** Critic values: required by "gae". */
  readonly values?: Floats;
  /** Greedy-response rewards: required by "remax". */
  readonly rewardBaselines?: Floats;
}

/** An advantage estimator behind the registry. */
export type AdvEstimatorFn = (input: AdvantageInput, config: AlgoConfig) => AdvantageResult;

function need<T>(value: T | undefined, field: string, estimator: string): T {
  if (value === undefined) throw invalid(field, `required by the "${estimator}" advantage estimator`);
  return value;
}

function grouped(input: AdvantageInput, estimator: string): OutcomeInput {
  return { ...input, index: need(input.index, 'index', estimator) };
}

/**
 * verl ADV_ESTIMATOR_REGISTRY plus ray_trainer `compute_advantage`'s argument wiring: "gae" gets
 * gamma/lam, the GRPO family gets norm_adv_by_std_in_grpo, REINFORCE++ gets gamma.
 */
export const ADV_ESTIMATORS = {
  gae: (i, c) => computeGaeAdvantageReturn({ ...i, values: need(i.values, 'values', 'gae'), gamma: c.gamma, lam: c.lam }),
  grpo: (i, c) => computeGrpoOutcomeAdvantage({ ...grouped(i, 'grpo'), normAdvByStdInGrpo: c.norm_adv_by_std_in_grpo }),
  grpo_vectorized: (i, c) => computeGrpoVectorizedOutcomeAdvantage({ ...grouped(i, 'grpo_vectorized'), normAdvByStdInGrpo: c.norm_adv_by_std_in_grpo }),
  grpo_passk: (i, c) => computeGrpoPasskOutcomeAdvantage({ ...grouped(i, 'grpo_passk'), normAdvByStdInGrpo: c.norm_adv_by_std_in_grpo }),
  reinforce_plus_plus: (i, c) => computeReinforcePlusPlusOutcomeAdvantage({ ...i, gamma: c.gamma }),
  reinforce_plus_plus_baseline: (i) => computeReinforcePlusPlusBaselineOutcomeAdvantage(grouped(i, 'reinforce_plus_plus_baseline')),
  remax: (i) => computeRemaxOutcomeAdvantage({ ...i, rewardBaselines: need(i.rewardBaselines, 'rewardBaselines', 'remax') }),
  rloo: (i) => computeRlooOutcomeAdvantage(grouped(i, 'rloo')),
  rloo_vectorized: (i) => computeRlooVectorizedOutcomeAdvantage(grouped(i, 'rloo_vectorized')),
  opo: (i) => computeOpoOutcomeAdvantage(grouped(i, 'opo')),
  gpg: (i) => computeGpgOutcomeAdvantage(grouped(i, 'gpg')),
} as const satisfies Record<AdvEstimatorName, AdvEstimatorFn>;

/** verl `get_adv_estimator_fn`: exact, case-sensitive lookup; unknown names are `invalid_params`. */
export function getAdvEstimatorFn(name: string): AdvEstimatorFn {
  const parsed = AdvEstimatorName.safeParse(name);
  if (!parsed.success) throw invalid('adv_estimator', `unknown advantage estimator: ${name}`);
  return ADV_ESTIMATORS[parsed.data];
}

/** Runs the configured estimator (ray_trainer `compute_advantage`). */
export function computeAdvantage(input: AdvantageInput, config: AlgoConfig): AdvantageResult {
  return getAdvEstimatorFn(config.adv_estimator)(input, config);
}
