import { z } from 'zod';
import { ignored } from './compat-keys.ts';
import { bool, nonNegative, nonNegativeInt, oneOf, positive, positiveInt, text } from './fields.ts';

// verl's own `reward.*` keys (its reward loop, 2026 layout), accepted next to
// ours so a verl command line runs as is (none shares a name with ours). These
// take effect: `custom_reward_function.reward_kwargs.params`,
// `sandbox_fusion.memory_limit_mb` and `reward_model.enable` / `model_path` /
// `name` (rows scored at the reward-model service, rewards/reward-mix.ts). The
// rest are accepted and ignored, each with its reason (compat-keys.ts), or
// refused where ignoring them would change the rewards: another Python
// function, a manager that reshapes scores.

/** `reward.custom_reward_function.path` values that name rl_rewards.verl, whose work the trainer does itself. */
const RL_REWARDS_VERL = /^(pkg:\/\/rl_rewards[./]verl|(file:\/\/)?(\S*\/)?rl_rewards\/verl\.py)$/;

/** verl reward managers that call the function and keep its score as is. */
const SCORE_PRESERVING_MANAGERS = ['naive', 'batch', 'rate_limited'] as const;

const VerlCustomRewardFunction = z.strictObject({
  /** Accepted and ignored when it names rl_rewards.verl (null too); any other function is refused. */
  path: ignored(
    z
      .string({ error: 'expected a path' })
      .nullable()
      .refine((p) => p === null || RL_REWARDS_VERL.test(p), {
        error:
          'expected pkg://rl_rewards.verl (or the path of rl_rewards/verl.py) or null: the trainer sends every sample to the reward services by data_source (reward.routes) and cannot run another Python function',
      }),
  ),
  /** Accepted and ignored: rl_rewards.verl's three functions score alike. */
  name: ignored(oneOf(['compute_score', 'compute_score_batch', 'compute_score_async'])),
  /** rl_rewards.verl's settings: `params` takes effect, its HTTP client settings are ignored. */
  reward_kwargs: z
    .strictObject({
      /** Keyword options for every item (rl_rewards' `params`), under `reward.params` of the item's data_source. @default {} */
      params: z.record(z.string(), z.unknown(), { error: 'expected a mapping of option names to values' }).optional(),
      url: ignored(text()),
      auth_token: ignored(z.string({ error: 'expected a string' })),
      timeout_s: ignored(positive()),
      max_retries: ignored(nonNegativeInt()),
      max_retry_wait_s: ignored(nonNegative()),
      batch_size: ignored(positiveInt()),
      batch_window_ms: ignored(nonNegative()),
      forward_reward_router: ignored(z.union([bool(), z.string()], { error: 'expected true or false' })),
      data_source: ignored(text()),
    })
    .optional(),
});

const VerlRewardManager = z.strictObject({
  /** Accepted and ignored: only verl's registered managers. */
  source: ignored(z.literal('register', { error: 'expected "register": a manager class of your own ("importlib") cannot run here' })),
  /** Accepted and ignored among the managers that keep the function's score. */
  name: ignored(
    z.enum(SCORE_PRESERVING_MANAGERS, {
      error: `expected one of ${SCORE_PRESERVING_MANAGERS.map((m) => JSON.stringify(m)).join(', ')}: the others (dapo's overlong penalty, prime, gdpo, remote) compute rewards this trainer does not`,
    }),
  ),
  /** Accepted and ignored when its path is null (used only with source "importlib"). */
  module: z.strictObject({ path: ignored(z.null({ error: 'expected null: a manager module of your own cannot run here' })), name: ignored(text()) }).optional(),
});

const VerlRewardModel = z.strictObject({
  /** Score rows with the reward model at the reward-model service (reward-mix.ts decides which rows). @default false */
  enable: bool().optional(),
  enable_resource_pool: ignored(bool()),
  n_gpus_per_node: ignored(positiveInt()),
  nnodes: ignored(nonNegativeInt()),
  /** The reward model's directory; its basename names it at the reward-model service unless `name` is set. */
  model_path: text().nullable().optional(),
  /** Ours: the name the reward-model service serves the model under (its REWARD_MODELS). @default basename of model_path */
  name: text().optional(),
  rollout: ignored(z.record(z.string(), z.unknown(), { error: 'expected a mapping' })),
});

/** verl's older top-level `reward_model.*` spelling (verl migrate_legacy_reward_impl moves it under `reward.reward_model`). */
export const LegacyRewardModel = z.strictObject({
  /** Same as `reward.reward_model.enable`. */
  enable: bool().optional(),
  /** `model.path`: same as `reward.reward_model.model_path`. */
  model: z.strictObject({ path: text().nullable().optional() }).optional(),
});

const VerlSandboxFusion = z.strictObject({
  url: ignored(text().nullable()),
  max_concurrent: ignored(positiveInt()),
  /** Memory budget of each code run, sent as `memory_limit_mb` to the sandbox scorer (under `reward.params`). */
  memory_limit_mb: positiveInt().optional(),
});

/** verl's `reward.*` sub-keys, spread into our RewardConfig. */
export const VerlRewardKeys = {
  num_workers: ignored(positiveInt()),
  custom_reward_function: VerlCustomRewardFunction.optional(),
  reward_manager: VerlRewardManager.optional(),
  reward_model: VerlRewardModel.optional(),
  sandbox_fusion: VerlSandboxFusion.optional(),
  // verl's rate_limited manager reads these from `reward.` directly.
  max_concurrent: ignored(positiveInt()),
  max_rpm: ignored(positive().nullable()),
  max_tpm: ignored(positive().nullable()),
  estimated_tokens_per_request: ignored(positiveInt()),
  timeout: ignored(positive()),
};

type RewardModelKeys = z.infer<typeof VerlRewardModel>;

/**
 * `reward.reward_model` with the older top-level `reward_model.*` spelling laid
 * over it, as verl's migrate_legacy_reward_impl does (a legacy key that is set wins).
 */
export function withLegacyRewardModel(
  current: RewardModelKeys | undefined,
  legacy: z.infer<typeof LegacyRewardModel> | undefined,
): RewardModelKeys | undefined {
  if (legacy === undefined) return current;
  return {
    ...current,
    ...(legacy.enable !== undefined && { enable: legacy.enable }),
    ...(legacy.model?.path !== undefined && { model_path: legacy.model.path }),
  };
}

/** What is wrong with an enabled reward model's keys (both spellings merged), as key path and message. */
export function rewardModelProblems(
  rm: RewardModelKeys | undefined,
  customFunctionPath: string | null | undefined,
): Array<{ path: string[]; message: string }> {
  if (rm?.enable !== true) return [];
  const problems: Array<{ path: string[]; message: string }> = [];
  if ((rm.model_path ?? null) === null && rm.name === undefined) {
    problems.push({
      path: ['reward', 'reward_model', 'model_path'],
      message: "expected the reward model's path (or reward.reward_model.name) with reward_model.enable true: it names the model at the reward-model service",
    });
  }
  if (customFunctionPath !== undefined && customFunctionPath !== null) {
    problems.push({
      path: ['reward', 'custom_reward_function', 'path'],
      message:
        'expected null with reward.reward_model.enable true: verl then scores every row with the custom function and never with the reward model (verl/experimental/reward_loop/reward_loop.py)',
    });
  }
  return problems;
}
