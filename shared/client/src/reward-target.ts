// Which rows the reward model scores, as verl 1dda039 decides it in
// verl/experimental/reward_loop/reward_loop.py (RewardLoopWorker.compute_score):
// with reward_model.enable and no custom reward function, every row gets the
// reward model's score (compute_score_disrm) and no rule function runs; with the
// reward model off, every row is scored by the rule function of its
// data_source. verl itself never reads a row's `reward_model.style`; here a row
// whose style is exactly "rule" keeps its rule score when the model is on, so
// one job can mix both (the trainer's CONFIG.md, "Reward model").

/** A row's reward: the reward model at the reward-model service, or the subject its data_source routes to. */
export type RewardTarget = { kind: 'model'; model: string } | { kind: 'route' };

/** Where a row with `reward_model.style` = `style` is scored when the reward model `model` (null: off) is configured. */
export function rewardTarget(style: unknown, model: string | null): RewardTarget {
  if (model === null || style === 'rule') return { kind: 'route' };
  return { kind: 'model', model };
}
