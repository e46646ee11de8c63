// verl keys a verl user's command line or YAML carries that change nothing
// here: they place work on GPUs or tune GPU memory, and the results are the
// same without them. They are accepted so a verl config runs as is, and a job
// that sets one says in its log that it was accepted and ignored, and why.
import type { z } from 'zod';

/** Key path -> why it has no effect here. */
export const COMPAT_KEYS = {
  'trainer.nnodes': "node placement: the policy worker and its engine's processes run on this machine",
  'trainer.logger': 'metrics always go to metrics.jsonl, the job events (SSE, NATS) and the plots',
  'actor_rollout_ref.rollout.name': 'the inference engine: rollouts come from the generation service, whose backend is its own setting',
  'actor_rollout_ref.rollout.gpu_memory_utilization': 'GPU memory of the inference engine',
  'actor_rollout_ref.rollout.tensor_model_parallel_size': 'GPU parallelism of the inference engine',
  'actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu': 'how many sequences one GPU scores at once (memory, not results)',
  'actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu': 'how many sequences one GPU scores at once (memory, not results)',
  'actor_rollout_ref.ref.use_torch_compile': "the reference policy runs on the actor's engine settings (actor.use_torch_compile)",
  'actor_rollout_ref.ref.fsdp_config.param_offload': 'FSDP CPU offload: the embedded model lives in CPU memory already',
  'actor_rollout_ref.actor.fsdp_config.param_offload': 'FSDP CPU offload: the embedded model lives in CPU memory already',
  'actor_rollout_ref.actor.fsdp_config.optimizer_offload': 'FSDP CPU offload: the optimizer state lives in CPU memory already',
  'actor_rollout_ref.model.use_remove_padding': 'a packing optimisation of HF models; the results are the same',
  // verl's reward keys (verl-reward-config.ts); the ones that would change the rewards are refused there instead.
  'reward.num_workers': "verl's reward-loop worker processes: here scoring is requests to the reward services, reward.concurrency of them in flight",
  'reward.custom_reward_function.path': 'rl_rewards.verl asks the reward services over HTTP; the trainer asks the same services over NATS (reward.routes)',
  'reward.custom_reward_function.name': "rl_rewards.verl's three functions score alike; the trainer batches by itself (reward.max_batch_size)",
  'reward.custom_reward_function.reward_kwargs.url': 'the HTTP address rl_rewards calls; the trainer reaches the services over NATS (reward.routes)',
  'reward.custom_reward_function.reward_kwargs.auth_token':
    "the bearer token of rl_rewards' HTTP requests; NATS requests carry none (the NATS connection's own credentials apply)",
  'reward.custom_reward_function.reward_kwargs.timeout_s': "rl_rewards' HTTP deadline; the trainer's is reward.timeout_ms",
  'reward.custom_reward_function.reward_kwargs.max_retries': "rl_rewards' retries; the trainer's are reward.retries",
  'reward.custom_reward_function.reward_kwargs.max_retry_wait_s': "rl_rewards' longest retry wait; the trainer's is reward.max_backoff_ms",
  'reward.custom_reward_function.reward_kwargs.batch_size': "rl_rewards' items per request; the trainer's is reward.max_batch_size",
  'reward.custom_reward_function.reward_kwargs.batch_window_ms': "how long rl_rewards gathers concurrent calls; the trainer sends a step's samples together",
  'reward.custom_reward_function.reward_kwargs.forward_reward_router':
    'the reward services do not call a reward model; rows verl would score with one go to reward.model.score (reward.reward_model.enable)',
  'reward.custom_reward_function.reward_kwargs.data_source': "rl_rewards' data source for samples without one; the trainer's is data.default_data_source",
  'reward.reward_manager.source': 'only verl\'s registered managers are accepted ("register")',
  'reward.reward_manager.name':
    'naive, batch and rate_limited differ in how verl calls the function, not in the scores; the trainer batches and bounds its requests itself',
  'reward.reward_manager.module.path': 'null: a manager module of your own, used only with source "importlib" (refused)',
  'reward.reward_manager.module.name': 'the class of a manager module of your own, used only with source "importlib" (refused)',
  'reward.reward_model.enable_resource_pool': 'GPU placement of the reward model: the reward-model service runs it',
  'reward.reward_model.n_gpus_per_node': 'GPU placement of the reward model: the reward-model service runs it',
  'reward.reward_model.nnodes': 'node placement of the reward model: the reward-model service runs it',
  'reward.reward_model.rollout': "the inference engine of the reward model: the reward-model service's backend (REWARD_MODELS) is its own setting",
  'reward.sandbox_fusion.url':
    "code data sources go to reward-sandbox (SandboxFusion's API) by reward.routes; its address is the service's setting, not the job's",
  'reward.sandbox_fusion.max_concurrent': "reward-sandbox's admission queue bounds the runs in flight",
  'reward.max_concurrent':
    "a limit of verl's rate_limited manager for paid APIs; the reward services answer busy when full and the trainer retries (reward.retries)",
  'reward.max_rpm': "a limit of verl's rate_limited manager for paid APIs, likewise",
  'reward.max_tpm': "a limit of verl's rate_limited manager for paid APIs, likewise",
  'reward.estimated_tokens_per_request': "the token estimate of verl's rate_limited manager (for max_tpm)",
  'reward.timeout': "the per-sample deadline of verl's rate_limited manager; the trainer's deadline per request is reward.timeout_ms",
} as const;
/** A compatibility key path. */
export type CompatKey = keyof typeof COMPAT_KEYS;

/** A schema field for a compatibility key: optional, so the parsed config shows whether the user set it. */
export const ignored = <S extends z.ZodType>(schema: S) => schema.optional();

/** The compatibility keys set in a parsed config, each with its reason. */
export function compatKeysSet(config: unknown): Array<{ key: CompatKey; reason: string }> {
  const get = (path: string) =>
    path.split('.').reduce<unknown>((v, k) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), config);
  return (Object.keys(COMPAT_KEYS) as CompatKey[]).filter((k) => get(k) !== undefined).map((key) => ({ key, reason: COMPAT_KEYS[key] }));
}
