// Which reward model a job names: @rl/client's reward client sends the rows it scores
// (rewardTarget) to the reward-model service under this name.

/** The enabled reward model's keys (`reward.reward_model`, older spelling merged). */
export interface RewardModelKeys {
  enable?: boolean | undefined;
  model_path?: string | null | undefined;
  name?: string | undefined;
}

/** The name the reward-model service knows the model by: `name`, else the basename of `model_path`; null when disabled. */
export function rewardModelName(rm: RewardModelKeys | undefined): string | null {
  if (rm?.enable !== true) return null;
  if (rm.name !== undefined) return rm.name;
  const path = (rm.model_path ?? '').replace(/\/+$/, '');
  const base = path.slice(path.lastIndexOf('/') + 1);
  return base === '' ? null : base;
}
