// Which rows the reward model scores, as verl 1dda039 decides it in
// verl/experimental/reward_loop/reward_loop.py (RewardLoopWorker.compute_score):
// with reward_model.enable and no custom reward function, every row gets the
// reward model's score (compute_score_disrm) and no rule function runs; with the
// reward model off, every row is scored by the rule function of its
// data_source. verl itself never reads a row's `reward_model.style`; here a row
// whose style is exactly "rule" keeps its rule score when the model is on, so
// one job can mix both (CONFIG.md, "Reward model").

/** A row's reward: the reward model at the reward-model service, or the subject its data_source routes to. */
export type RewardTarget = { kind: 'model'; model: string } | { kind: 'route' };

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

/** Where a row with `reward_model.style` = `style` is scored when the reward model `model` (null: off) is configured. */
export function rewardTarget(style: unknown, model: string | null): RewardTarget {
  if (model === null || style === 'rule') return { kind: 'route' };
  return { kind: 'model', model };
}
