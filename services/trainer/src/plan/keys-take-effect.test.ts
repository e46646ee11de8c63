// Every key the job schemas accept changes what the job does (issue: "no
// silently ignored keys"). Each leaf key gets a different value (with the
// context that makes it matter, e.g. the critic's keys with the critic on) and
// the job's plan must change; the plan is what the adapters execute, and each
// part of it is exercised by its own component's tests. The few keys consumed
// before planning (they choose files) are listed with the test that covers them.
import { arithmeticTokenizer } from '@rl/policy';
import { describe, expect, it } from 'vitest';
import { JobConfigInput, SftJobConfigInput, validateJobConfig, validateRlJobConfig, type SftJobConfig } from '../config/index.ts';
import { COMPAT_KEYS, compatKeysSet } from '../config/compat-keys.ts';
import { allKeyPaths, knownKeysAt } from '../config/schema-keys.ts';
import { planRlJob } from './rl-plan.ts';
import { planSftJob } from './sft-plan.ts';

type Raw = Record<string, unknown>;
interface Change {
  /** Where in the plan the key lands (dotted path): that value must change. */
  at: string;
  value: unknown;
  /** Other keys set in both configs, so the change matters (dotted path -> value). */
  context?: Record<string, unknown>;
}

const setPath = (o: Raw, path: string, value: unknown): Raw => {
  const keys = path.split('.');
  const out = structuredClone(o);
  let cur = out;
  for (const k of keys.slice(0, -1)) cur = (cur[k] ??= {}) as Raw;
  cur[keys.at(-1)!] = value;
  return out;
};
const leaves = (schema: Parameters<typeof allKeyPaths>[0]) =>
  allKeyPaths(schema)
    .filter((p) => knownKeysAt(schema, p) === undefined)
    .map((p) => p.join('.'));

const FACTS = { baseDir: '/jobs', tokenizer: arithmeticTokenizer().config, modelDir: null, criticModelDir: null, longestPromptTokens: 20 };
const critic = { 'critic.enable': true };
const lora = { 'actor_rollout_ref.model.lora_rank': 8 };

const RL_BASE: Raw = { data: { train_files: 'train.parquet' } };
const RL: Record<string, Change> = {
  'data.train_files': { at: 'train.files', value: 'other.parquet' },
  'data.val_files': { at: 'val', value: 'val.parquet' },
  'data.train_batch_size': { at: 'sampler.batchSize', value: 8 },
  'data.val_batch_size': { at: 'fit.valBatchSize', value: 4 },
  'data.train_max_samples': { at: 'train.maxSamples', value: 100 },
  'data.val_max_samples': { at: 'val.maxSamples', value: 100, context: { 'data.val_files': 'val.parquet' } },
  'data.max_prompt_length': { at: 'train.filterMaxPromptLength', value: 8, context: { 'data.filter_overlong_prompts': true } },
  'data.max_response_length': { at: 'step.widths.responseWidth', value: 64 },
  'data.filter_overlong_prompts': { at: 'train.filterMaxPromptLength', value: true },
  'data.shuffle': { at: 'sampler.shuffle', value: false },
  'data.seed': { at: 'sampler.seed', value: 7 },
  'data.prompt_key': { at: 'train.promptKey', value: 'question' },
  'data.prompt_without_context_key': { at: 'train.withoutContextKey', value: 'bare_prompt' },
  'data.default_data_source': { at: 'train.defaultDataSource', value: 'arithmetic_sequence' },
  'data.mix_weights': { at: 'sampler.mixWeights', value: [1, 3], context: { 'data.train_files': ['a.parquet', 'b.parquet'] } },
  'actor_rollout_ref.rollout.temperature': { at: 'step.sampling.temperature', value: 0.7 },
  'actor_rollout_ref.rollout.top_p': { at: 'step.sampling.topP', value: 0.9 },
  'actor_rollout_ref.rollout.top_k': { at: 'step.sampling.topK', value: 20 },
  'actor_rollout_ref.rollout.n': { at: 'step.sampling.n', value: 4 },
  'actor_rollout_ref.rollout.do_sample': { at: 'step.sampling.temperature', value: false },
  'actor_rollout_ref.rollout.val_kwargs.temperature': {
    at: 'fit.valSampling.temperature',
    value: 0.5,
    context: { 'actor_rollout_ref.rollout.val_kwargs.do_sample': true },
  },
  'actor_rollout_ref.rollout.val_kwargs.top_p': { at: 'fit.valSampling.topP', value: 0.9 },
  'actor_rollout_ref.rollout.val_kwargs.top_k': { at: 'fit.valSampling.topK', value: 20 },
  'actor_rollout_ref.rollout.val_kwargs.n': { at: 'fit.valSampling.n', value: 4 },
  'actor_rollout_ref.rollout.val_kwargs.do_sample': {
    at: 'fit.valSampling.temperature',
    value: true,
    context: { 'actor_rollout_ref.rollout.val_kwargs.temperature': 0.5 },
  },
  'actor_rollout_ref.actor.optim.lr': { at: 'step.loss.lr', value: 1e-4 },
  'actor_rollout_ref.actor.optim.weight_decay': { at: 'spec.optim.weight_decay', value: 0 },
  'actor_rollout_ref.actor.optim.betas': { at: 'spec.optim.betas', value: [0.8, 0.99] },
  'actor_rollout_ref.actor.optim.lr_scheduler_type': { at: 'step.schedules.actor.kind', value: 'cosine' },
  'actor_rollout_ref.actor.optim.lr_warmup_steps': { at: 'step.schedules.actor.warmupSteps', value: 3 },
  'actor_rollout_ref.actor.optim.lr_warmup_steps_ratio': { at: 'step.schedules.actor.warmupRatio', value: 0.1 },
  'actor_rollout_ref.actor.optim.min_lr_ratio': { at: 'step.schedules.actor.minLrRatio', value: 0.1 },
  'actor_rollout_ref.actor.optim.num_cycles': { at: 'step.schedules.actor.numCycles', value: 1 },
  'actor_rollout_ref.actor.ppo_mini_batch_size': { at: 'step.loss.ppo_mini_batch_size', value: 4 },
  'actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu': { at: 'step.loss.ppo_micro_batch_size', value: 2 },
  'actor_rollout_ref.actor.ppo_epochs': { at: 'step.loss.ppo_epochs', value: 2 },
  'actor_rollout_ref.actor.shuffle': { at: 'step.loss.shuffle', value: true },
  'actor_rollout_ref.actor.data_loader_seed': { at: 'step.loss.data_loader_seed', value: 1 },
  'actor_rollout_ref.actor.clip_ratio': { at: 'spec.loss.clip_ratio_low', value: 0.3, context: { 'actor_rollout_ref.actor.clip_ratio_low': null } },
  'actor_rollout_ref.actor.clip_ratio_low': { at: 'spec.loss.clip_ratio_low', value: 0.1 },
  'actor_rollout_ref.actor.clip_ratio_high': { at: 'spec.loss.clip_ratio_high', value: 0.28 },
  'actor_rollout_ref.actor.clip_ratio_c': { at: 'spec.loss.clip_ratio_c', value: 10 },
  'actor_rollout_ref.actor.loss_agg_mode': { at: 'spec.loss.loss_agg_mode', value: 'seq-mean-token-mean' },
  'actor_rollout_ref.actor.entropy_coeff': { at: 'spec.loss.entropy_coeff', value: 0.01 },
  'actor_rollout_ref.actor.use_kl_loss': { at: 'step.needRef', value: true },
  'actor_rollout_ref.actor.kl_loss_coef': { at: 'spec.loss.kl_loss_coef', value: 0.1 },
  'actor_rollout_ref.actor.kl_loss_type': { at: 'spec.loss.kl_loss_type', value: 'k2' },
  'actor_rollout_ref.actor.grad_clip': { at: 'spec.optim.grad_clip', value: 0.5 },
  'actor_rollout_ref.actor.policy_loss.loss_mode': { at: 'spec.loss.policy_loss.loss_mode', value: 'gspo' },
  'actor_rollout_ref.actor.policy_loss.clip_cov_ratio': { at: 'spec.loss.policy_loss.clip_cov_ratio', value: 0.01 },
  'actor_rollout_ref.actor.policy_loss.clip_cov_lb': { at: 'spec.loss.policy_loss.clip_cov_lb', value: 0.5 },
  'actor_rollout_ref.actor.policy_loss.clip_cov_ub': { at: 'spec.loss.policy_loss.clip_cov_ub', value: 4 },
  'actor_rollout_ref.actor.policy_loss.kl_cov_ratio': { at: 'spec.loss.policy_loss.kl_cov_ratio', value: 0.01 },
  'actor_rollout_ref.actor.policy_loss.ppo_kl_coef': { at: 'spec.loss.policy_loss.ppo_kl_coef', value: 0.2 },
  'actor_rollout_ref.actor.tau_pos': { at: 'spec.loss.tau_pos', value: 2 },
  'actor_rollout_ref.actor.tau_neg': { at: 'spec.loss.tau_neg', value: 2 },
  'actor_rollout_ref.model.architecture': { at: 'spec.model.architecture', value: 'LlamaForCausalLM' },
  'actor_rollout_ref.model.d_model': { at: 'spec.model.d_model', value: 64 },
  'actor_rollout_ref.model.n_layers': { at: 'spec.model.n_layers', value: 2 },
  'actor_rollout_ref.model.n_heads': { at: 'spec.model.n_heads', value: 2 },
  'actor_rollout_ref.model.n_kv_heads': { at: 'spec.model.n_kv_heads', value: 2 },
  'actor_rollout_ref.model.head_dim': { at: 'spec.model.head_dim', value: 16 },
  'actor_rollout_ref.model.d_ff': { at: 'spec.model.d_ff', value: 256 },
  'actor_rollout_ref.model.max_seq_len': { at: 'spec.model.max_seq_len', value: 1024 },
  'actor_rollout_ref.model.seed': { at: 'spec.model.seed', value: 1 },
  'actor_rollout_ref.model.enable_gradient_checkpointing': { at: 'spec.engine.gradient_checkpointing', value: true },
  'actor_rollout_ref.actor.strategy': { at: 'spec.engine.kind', value: 'fsdp' },
  'actor_rollout_ref.actor.use_torch_compile': { at: 'spec.engine.compile', value: false },
  'actor_rollout_ref.actor.use_dynamic_bsz': { at: 'spec.engine.max_tokens', value: true },
  'actor_rollout_ref.actor.ppo_max_token_len_per_gpu': {
    at: 'spec.engine.max_tokens',
    value: 4096,
    context: { 'actor_rollout_ref.actor.use_dynamic_bsz': true },
  },
  'actor_rollout_ref.model.lora_rank': { at: 'spec.lora', value: 8 },
  'actor_rollout_ref.model.lora_alpha': { at: 'spec.lora.alpha', value: 32, context: lora },
  'actor_rollout_ref.model.target_modules': { at: 'spec.lora.target_modules', value: ['q_proj', 'v_proj'], context: lora },
  'algorithm.adv_estimator': { at: 'step.algorithm.adv_estimator', value: 'grpo' },
  'algorithm.gamma': { at: 'step.algorithm.gamma', value: 0.9 },
  'algorithm.lam': { at: 'step.algorithm.lam', value: 0.9 },
  'algorithm.norm_adv_by_std_in_grpo': { at: 'step.algorithm.norm_adv_by_std_in_grpo', value: false },
  'algorithm.use_kl_in_reward': { at: 'step.algorithm.use_kl_in_reward', value: true },
  'algorithm.kl_penalty': { at: 'step.algorithm.kl_penalty', value: 'abs' },
  'algorithm.kl_ctrl.type': { at: 'step.algorithm.kl_ctrl.type', value: 'adaptive' },
  'algorithm.kl_ctrl.kl_coef': { at: 'step.algorithm.kl_ctrl.kl_coef', value: 0.2 },
  'algorithm.kl_ctrl.target_kl': { at: 'step.algorithm.kl_ctrl.target_kl', value: 0.5 },
  'algorithm.kl_ctrl.horizon': { at: 'step.algorithm.kl_ctrl.horizon', value: 100 },
  'critic.enable': { at: 'spec.critic', value: true, context: { 'algorithm.adv_estimator': 'grpo' } },
  'critic.optim.lr': { at: 'step.critic.loss.lr', value: 1e-3, context: critic },
  'critic.optim.weight_decay': { at: 'spec.critic.optim.weight_decay', value: 0, context: critic },
  'critic.optim.betas': { at: 'spec.critic.optim.betas', value: [0.8, 0.99], context: critic },
  'critic.optim.lr_scheduler_type': { at: 'step.schedules.critic.kind', value: 'cosine', context: critic },
  'critic.optim.lr_warmup_steps': { at: 'step.schedules.critic.warmupSteps', value: 3, context: critic },
  'critic.optim.lr_warmup_steps_ratio': { at: 'step.schedules.critic.warmupRatio', value: 0.1, context: critic },
  'critic.optim.min_lr_ratio': { at: 'step.schedules.critic.minLrRatio', value: 0.1, context: critic },
  'critic.optim.num_cycles': { at: 'step.schedules.critic.numCycles', value: 1, context: critic },
  'critic.cliprange_value': { at: 'spec.critic.cliprange_value', value: 0.1, context: critic },
  'critic.grad_clip': { at: 'spec.critic.optim.grad_clip', value: 0.5, context: critic },
  'critic.ppo_epochs': { at: 'step.critic.loss.ppo_epochs', value: 3, context: critic },
  'critic.ppo_mini_batch_size': { at: 'step.critic.loss.ppo_mini_batch_size', value: 4, context: critic },
  'critic.ppo_micro_batch_size_per_gpu': { at: 'step.critic.loss.ppo_micro_batch_size', value: 2, context: critic },
  'critic.shuffle': { at: 'step.critic.loss.shuffle', value: true, context: critic },
  'critic.data_loader_seed': { at: 'step.critic.loss.data_loader_seed', value: 1, context: critic },
  'critic.strategy': { at: 'spec.critic.engine.kind', value: 'fsdp2', context: critic },
  'critic.use_dynamic_bsz': { at: 'spec.critic.engine.max_tokens', value: true, context: critic },
  'critic.ppo_max_token_len_per_gpu': { at: 'spec.critic.engine.max_tokens', value: 4096, context: { ...critic, 'critic.use_dynamic_bsz': true } },
  'critic.loss_agg_mode': { at: 'spec.critic.loss_agg_mode', value: 'seq-mean-token-sum', context: critic },
  'trainer.n_gpus_per_node': { at: 'spec.engine.world_size', value: 2, context: { 'actor_rollout_ref.actor.strategy': 'fsdp' } },
  'trainer.total_epochs': { at: 'totalEpochs', value: 3 },
  'trainer.total_training_steps': { at: 'totalSteps', value: 10 },
  'trainer.save_freq': { at: 'fit.saveFreq', value: 5 },
  'trainer.test_freq': { at: 'fit.testFreq', value: 5 },
  'trainer.critic_warmup': { at: 'step.critic.warmup', value: 2, context: critic },
  'trainer.val_before_train': { at: 'fit.valBeforeTrain', value: false },
  'trainer.project_name': { at: 'dir', value: 'p' },
  'trainer.experiment_name': { at: 'name', value: 'e' },
  'trainer.default_local_dir': { at: 'dir', value: 'out' },
  'trainer.resume_mode': { at: 'resume', value: 'disable' },
  'trainer.validation_data_dir': { at: 'dumps.validation', value: 'val_dump' },
  'trainer.rollout_data_dir': { at: 'dumps.rollout', value: 'rollout_dump' },
  'trainer.worker_call_timeout_ms': { at: 'workerTimeouts.callMs', value: 1000 },
  'trainer.worker_update_timeout_ms': { at: 'workerTimeouts.updateMs', value: 1000 },
  'reward.routes': { at: 'rewards.routes', value: { my_task: 'reward.custom.score' } },
  'reward.timeout_ms': { at: 'rewards.timeout_ms', value: 1000 },
  'reward.retries': { at: 'rewards.retries', value: 0 },
  'reward.concurrency': { at: 'rewards.concurrency', value: 1 },
  'reward.stream': { at: 'rewards.stream', value: false },
  'reward.cache': { at: 'rewards.cache', value: false },
  'reward.max_batch_size': { at: 'rewards.max_batch_size', value: 16 },
  'reward.backoff_ms': { at: 'rewards.backoff_ms', value: 10 },
  'reward.max_backoff_ms': { at: 'rewards.max_backoff_ms', value: 100 },
  'reward.params': { at: 'rewards.params', value: { 'openai/gsm8k': { method: 'flexible' } } },
  'reward.custom_reward_function.reward_kwargs.params': { at: 'rewards.custom_reward_function.reward_kwargs.params', value: { method: 'flexible' } },
  'reward.sandbox_fusion.memory_limit_mb': { at: 'rewards.sandbox_fusion.memory_limit_mb', value: 512 },
  'reward.reward_model.enable': { at: 'rewards.reward_model.enable', value: true, context: { 'reward.reward_model.model_path': '/m/rm' } },
  'reward.reward_model.model_path': {
    at: 'rewards.reward_model.model_path',
    value: '/m/other-rm',
    context: { 'reward.reward_model.enable': true, 'reward.reward_model.model_path': '/m/rm' },
  },
  'reward.reward_model.name': {
    at: 'rewards.reward_model.name',
    value: 'my-rm',
    context: { 'reward.reward_model.enable': true, 'reward.reward_model.model_path': '/m/rm' },
  },
  'reward_model.enable': { at: 'rewards.reward_model.enable', value: true, context: { 'reward.reward_model.model_path': '/m/rm' } },
  'reward_model.model.path': {
    at: 'rewards.reward_model.model_path',
    value: '/m/other-rm',
    context: { 'reward.reward_model.enable': true, 'reward.reward_model.model_path': '/m/rm' },
  },
  'reward.token_rewards_key': { at: 'step.tokenRewardsKey', value: 'token_rewards' },
  'reward.signals': { at: 'step.signals.enabled', value: false },
  'rollout.mode': { at: 'rollout.mode', value: 'embedded' },
  'rollout.subject': { at: 'rollout.subject', value: 'rollout.other' },
  'rollout.timeout_ms': { at: 'rollout.timeoutMs', value: 1000 },
  'rollout.weights_bucket': { at: 'spec.weights.bucket', value: 'b2' },
  'rollout.weights_name': { at: 'spec.weights.name', value: 'a2' },
  'rollout.weights_format': { at: 'spec.weights.format', value: 'adapter', context: lora },
};

/** Keys read before planning: they choose the model's files or check the data; the named tests cover them. */
const RESOLVED: Record<string, string> = {
  kind: 'picks the schema (config/job-config.test.ts, and the SFT table below)',
  'data.truncation': 'one value ("error"): an over-long prompt fails the job (data/check-prompt-lengths.test.ts); the others are refused (config tests)',
  'actor_rollout_ref.model.path': 'resolved to the initial model directory (adapters/model-source.test.ts)',
  'actor_rollout_ref.model.tokenizer': 'resolved to the tokenizer config (adapters/model-source.test.ts)',
  'critic.model.path': 'resolved to the critic model directory (adapters/model-source.test.ts)',
};

const SFT_BASE: Raw = { kind: 'sft', data: { train_files: 'train.parquet' } };
const SFT: Record<string, Change> = {
  'data.train_files': { at: 'data.train', value: 'other.parquet' },
  'data.val_files': { at: 'data.val', value: 'val.parquet' },
  'data.train_batch_size': { at: 'batchSize', value: 8 },
  'data.micro_batch_size_per_gpu': { at: 'microBatchSize', value: 2 },
  'data.train_max_samples': { at: 'data.trainMaxSamples', value: 10 },
  'data.val_max_samples': { at: 'data.valMaxSamples', value: 10 },
  'data.prompt_key': { at: 'data.columns.promptKey', value: 'prompt' },
  'data.response_key': { at: 'data.columns.responseKey', value: 'extra_info' },
  'data.prompt_dict_keys': { at: 'data.columns.promptDictKeys', value: ['question'] },
  'data.response_dict_keys': { at: 'data.columns.responseDictKeys', value: ['answer'] },
  'data.multiturn.enable': { at: 'data.columns.messagesKey', value: true },
  'data.multiturn.messages_key': { at: 'data.columns.messagesKey', value: 'conversation', context: { 'data.multiturn.enable': true } },
  'data.max_length': { at: 'data.maxLength', value: 64 },
  'data.truncation': { at: 'data.truncation', value: 'right' },
  'model.architecture': { at: 'spec.model.architecture', value: 'Qwen2ForCausalLM' },
  'model.d_model': { at: 'spec.model.d_model', value: 64 },
  'model.n_layers': { at: 'spec.model.n_layers', value: 2 },
  'model.n_heads': { at: 'spec.model.n_heads', value: 2 },
  'model.n_kv_heads': { at: 'spec.model.n_kv_heads', value: 2 },
  'model.head_dim': { at: 'spec.model.head_dim', value: 16 },
  'model.d_ff': { at: 'spec.model.d_ff', value: 256 },
  'model.max_seq_len': { at: 'spec.model.max_seq_len', value: 512 },
  'model.seed': { at: 'spec.model.seed', value: 1 },
  'model.strategy': { at: 'spec.engine.kind', value: 'fsdp2' },
  'model.enable_gradient_checkpointing': { at: 'spec.engine.gradient_checkpointing', value: true },
  'model.use_torch_compile': { at: 'spec.engine.compile', value: false },
  'optim.lr': { at: 'schedule.peakLr', value: 1e-3 },
  'optim.betas': { at: 'spec.optim.betas', value: [0.8, 0.99] },
  'optim.weight_decay': { at: 'spec.optim.weight_decay', value: 0 },
  'optim.lr_warmup_steps_ratio': { at: 'schedule.warmupRatio', value: 0 },
  'optim.clip_grad': { at: 'spec.optim.grad_clip', value: 0.5 },
  'optim.lr_scheduler': { at: 'schedule.kind', value: 'wsd' },
  'trainer.total_epochs': { at: 'totalEpochs', value: 2 },
  'trainer.n_gpus_per_node': { at: 'spec.engine.world_size', value: 2, context: { 'model.strategy': 'fsdp' } },
  'trainer.total_training_steps': { at: 'totalSteps', value: 10 },
  'trainer.save_freq': { at: 'saveFreq', value: 5 },
  'trainer.test_freq': { at: 'testFreq', value: 5 },
  'trainer.val_before_train': { at: 'valBeforeTrain', value: true },
  'trainer.project_name': { at: 'dir', value: 'p' },
  'trainer.experiment_name': { at: 'name', value: 'e' },
  'trainer.default_local_dir': { at: 'dir', value: 'out' },
  'trainer.resume_mode': { at: 'resume', value: 'disable' },
  'trainer.seed': { at: 'seed', value: 7 },
  'trainer.worker_call_timeout_ms': { at: 'workerTimeouts.callMs', value: 1000 },
  'trainer.worker_update_timeout_ms': { at: 'workerTimeouts.updateMs', value: 1000 },
};
const SFT_RESOLVED: Record<string, string> = {
  kind: 'picks the schema',
  'model.partial_pretrain': 'resolved to the initial model directory (adapters/model-source.test.ts)',
  'model.tokenizer': 'resolved to the tokenizer config (adapters/model-source.test.ts)',
};

const get = (o: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((v, k) => (v === null || typeof v !== 'object' ? undefined : (v as Raw)[k]), o);

function withContext(base: Raw, change: Change): Raw {
  return Object.entries(change.context ?? {}).reduce((o, [k, v]) => setPath(o, k, v), base);
}

describe('every accepted RL key changes the job', () => {
  it('the table covers every leaf key of the schema; the rest are verl-compatibility keys, accepted and logged as ignored', () => {
    expect(leaves(JobConfigInput).filter((k) => !(k in RL) && !(k in RESOLVED) && !(k in COMPAT_KEYS))).toEqual([]);
  });

  it('a job that sets a compatibility key says so, with the reason', () => {
    const c = validateRlJobConfig({ ...RL_BASE, trainer: { nnodes: 1, logger: ['console'] }, actor_rollout_ref: { rollout: { name: 'vllm' } } });
    expect(compatKeysSet(c).map((k) => k.key)).toEqual(['trainer.nnodes', 'trainer.logger', 'actor_rollout_ref.rollout.name']);
    expect(compatKeysSet(validateRlJobConfig(RL_BASE))).toEqual([]);
    // Every compatibility key is one the schemas accept.
    const all = [...leaves(JobConfigInput), ...leaves(SftJobConfigInput)];
    expect(Object.keys(COMPAT_KEYS).filter((k) => !all.includes(k))).toEqual([]);
  });
  for (const [key, change] of Object.entries(RL)) {
    it(key, () => {
      const base = withContext(RL_BASE, change);
      const before = planRlJob(validateRlJobConfig(base), FACTS);
      const after = planRlJob(validateRlJobConfig(setPath(base, key, change.value)), FACTS);
      expect(JSON.stringify(get(after, change.at))).not.toBe(JSON.stringify(get(before, change.at)));
    });
  }
});

describe('every accepted SFT key changes the job', () => {
  const plan = (raw: Raw) => planSftJob(validateJobConfig(raw) as SftJobConfig, { baseDir: '/jobs', tokenizer: FACTS.tokenizer, modelDir: null });
  it('the table covers every leaf key of the schema', () => {
    expect(leaves(SftJobConfigInput).filter((k) => !(k in SFT) && !(k in SFT_RESOLVED) && !(k in COMPAT_KEYS))).toEqual([]);
  });
  for (const [key, change] of Object.entries(SFT)) {
    it(key, () => {
      const base = withContext(SFT_BASE, change);
      expect(JSON.stringify(get(plan(setPath(base, key, change.value)), change.at))).not.toBe(JSON.stringify(get(plan(base), change.at)));
    });
  }
});
