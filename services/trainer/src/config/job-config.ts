import { z } from 'zod';
import { ActorRolloutRefConfig, architectureProblems, resolveArchitecture } from './actor-rollout-ref-config.ts';
import { AlgorithmConfig, CriticConfig } from './algorithm-config.ts';
import { DataConfig } from './data-config.ts';
import { RewardConfig, RolloutServiceConfig } from './reward-config.ts';
import { TrainerConfig } from './trainer-config.ts';
import { LegacyRewardModel, rewardModelProblems, withLegacyRewardModel } from './verl-reward-config.ts';

/** The job config as written: verl's key names, nested; every section optional except `data.train_files`. */
export const JobConfigInput = z.strictObject({
  /** Job kind: "rl" (this schema, verl main_ppo) or "sft" (verl fsdp_sft_trainer; see the SFT section). @default "rl" */
  kind: z.literal('rl', { error: 'expected "rl" or "sft"' }).default('rl'),
  data: DataConfig,
  actor_rollout_ref: ActorRolloutRefConfig.prefault({}),
  algorithm: AlgorithmConfig.prefault({}),
  critic: CriticConfig.prefault({}),
  trainer: TrainerConfig.prefault({}),
  reward: RewardConfig.prefault({}),
  rollout: RolloutServiceConfig.prefault({}),
  /** verl's older spelling of `reward.reward_model` (`enable`, `model.path`); merged under it. */
  reward_model: LegacyRewardModel.optional(),
});
type Parsed = z.infer<typeof JobConfigInput>;

/** Cross-key rules verl checks at start-up (and a few of ours), reported with the rest. */
function checkCrossKeys(c: Parsed, ctx: z.RefinementCtx): void {
  const issue = (path: PropertyKey[], message: string) => ctx.addIssue({ code: 'custom', path, message });
  const { data, actor_rollout_ref: arr, critic } = c;
  if (data.mix_weights !== null && data.mix_weights.length !== data.train_files.length) {
    issue(['data', 'mix_weights'], `expected one weight per train file (${data.train_files.length})`);
  }
  if (arr.actor.ppo_mini_batch_size !== null && arr.actor.ppo_mini_batch_size > data.train_batch_size) {
    issue(['actor_rollout_ref', 'actor', 'ppo_mini_batch_size'], `must be <= data.train_batch_size (${data.train_batch_size})`);
  }
  const mini = (arr.actor.ppo_mini_batch_size ?? data.train_batch_size) * arr.rollout.n;
  const micro = arr.actor.ppo_micro_batch_size_per_gpu;
  if (micro !== null && mini % micro !== 0) {
    issue(
      ['actor_rollout_ref', 'actor', 'ppo_micro_batch_size_per_gpu'],
      `must divide actor_rollout_ref.actor.ppo_mini_batch_size × rollout.n (${mini}), as verl asserts`,
    );
  }
  if (c.algorithm.adv_estimator === 'gae' && critic.enable === false) {
    issue(['critic', 'enable'], 'must not be false with algorithm.adv_estimator "gae": GAE needs the critic\'s values');
  }
  const criticMini = (critic.ppo_mini_batch_size ?? arr.actor.ppo_mini_batch_size ?? data.train_batch_size) * arr.rollout.n;
  if (critic.ppo_micro_batch_size_per_gpu !== null && criticMini % critic.ppo_micro_batch_size_per_gpu !== 0) {
    issue(['critic', 'ppo_micro_batch_size_per_gpu'], `must divide critic.ppo_mini_batch_size × rollout.n (${criticMini}), as verl asserts`);
  }
  if (critic.ppo_mini_batch_size !== null && critic.ppo_mini_batch_size > data.train_batch_size) {
    issue(['critic', 'ppo_mini_batch_size'], `must be <= data.train_batch_size (${data.train_batch_size})`);
  }
  for (const p of architectureProblems(arr.model, 'actor_rollout_ref.model.path', 'actor_rollout_ref.model', arr.model.path !== null)) {
    issue(['actor_rollout_ref', 'model', p.key], p.message);
  }
  if (c.rollout.weights_format === 'adapter' && arr.model.lora_rank === 0) {
    issue(['rollout', 'weights_format'], '"adapter" publishes a LoRA adapter: set actor_rollout_ref.model.lora_rank > 0');
  }
  const rm = withLegacyRewardModel(c.reward.reward_model, c.reward_model);
  for (const p of rewardModelProblems(rm, c.reward.custom_reward_function?.path)) issue(p.path, p.message);
  const needed = data.max_prompt_length + data.max_response_length;
  if (arr.model.max_seq_len !== null && arr.model.max_seq_len < needed) {
    issue(['actor_rollout_ref', 'model', 'max_seq_len'], `must be >= data.max_prompt_length + data.max_response_length (${needed})`);
  }
}

/** Fills the keys verl derives by interpolation (`${...}`) from other keys. */
function resolveDerived({ reward_model: legacyRewardModel, ...c }: Parsed) {
  const { data, actor_rollout_ref: arr, critic, trainer } = c;
  const rewardModel = withLegacyRewardModel(c.reward.reward_model, legacyRewardModel);
  const { actor } = arr;
  const miniBatch = actor.ppo_mini_batch_size ?? data.train_batch_size;
  return {
    ...c,
    actor_rollout_ref: {
      ...arr,
      actor: {
        ...actor,
        ppo_mini_batch_size: miniBatch,
        clip_ratio_low: actor.clip_ratio_low ?? actor.clip_ratio,
        clip_ratio_high: actor.clip_ratio_high ?? actor.clip_ratio,
      },
      model: { ...resolveArchitecture(arr.model), max_seq_len: arr.model.max_seq_len ?? data.max_prompt_length + data.max_response_length },
    },
    critic: {
      ...critic,
      enable: critic.enable ?? c.algorithm.adv_estimator === 'gae',
      ppo_epochs: critic.ppo_epochs ?? actor.ppo_epochs,
      ppo_mini_batch_size: critic.ppo_mini_batch_size ?? miniBatch,
      shuffle: critic.shuffle ?? actor.shuffle,
      loss_agg_mode: critic.loss_agg_mode ?? actor.loss_agg_mode,
    },
    reward: { ...c.reward, ...(rewardModel !== undefined && { reward_model: rewardModel }) },
    trainer: { ...trainer, default_local_dir: trainer.default_local_dir ?? `.run/checkpoints/${trainer.project_name}/${trainer.experiment_name}` },
  };
}

/** The validated job config with defaults and derived keys filled in. */
export const JobConfig = JobConfigInput.superRefine(checkCrossKeys).transform(resolveDerived);
/** A validated job config. */
export type JobConfig = z.output<typeof JobConfig>;
