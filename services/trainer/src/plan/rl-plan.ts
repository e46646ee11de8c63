// Everything an RL job runs with, derived from its validated config and the
// few facts only the data and weights can tell (the tokenizer, the model
// directory, the longest prompt). Pure: the adapter (run-rl-job.ts) builds clients
// and processes from it, and a test walks every config key through it to
// prove each one changes what the job does.
import { resolve } from 'node:path';
import { widthBucket, type TokenizerConfig } from '@rl/policy';
import { AlgoConfig } from '../core/algos/index.ts';
import type { PadWidths, RolloutSampling } from '../core/controller/ports.ts';
import type { JobConfig } from '../config/index.ts';
import type { BatchSamplerOptions, LoadDatasetOptions } from '../data/index.ts';
import { RolloutCorrectionSchema } from '../policy/protocol.ts';
import type { WorkerSpec } from '../policy/worker-spec.ts';
import { engineOf, type Strategy } from '../config/strategy.ts';

/** What the adapter learned before planning. */
export interface RlFacts {
  /** Directory relative paths resolve against. */
  baseDir: string;
  tokenizer: TokenizerConfig;
  /** The actor's initial model directory (actor_rollout_ref.model.path resolved), null for random init. */
  modelDir: string | null;
  /** critic.model.path resolved to a model directory. */
  criticModelDir: string | null;
  /** Tokens of the longest training prompt, chat template included. */
  longestPromptTokens: number;
}

/** Dataset options without the token counter (the adapter adds it when `filterMaxPromptLength` is set). */
export type DatasetPlan = Omit<LoadDatasetOptions, 'filter'> & { filterMaxPromptLength: number | null };

/** The whole plan of an RL job. */
export interface RlJobPlan {
  /** Display name of the job (trainer.experiment_name). */
  name: string;
  dir: string;
  spec: Omit<WorkerSpec, 'job'>;
  train: DatasetPlan;
  val: DatasetPlan | null;
  sampler: BatchSamplerOptions;
  /** null: total_epochs × steps per epoch (known once the data is loaded). */
  totalSteps: number | null;
  totalEpochs: number;
  step: {
    algorithm: AlgoConfig;
    sampling: RolloutSampling;
    loss: Record<string, unknown> & { ppo_mini_batch_size: number };
    needRef: boolean;
    tokenRewardsKey: string | null;
    widths: PadWidths;
    /** reward.signals (null: the rows routed to the story reward). */
    signals: { enabled: boolean | null };
    critic?: { warmup: number; loss: Record<string, unknown> };
    /** The actor's and critic's learning-rate schedules (their `lr` is the peak). */
    schedules: { actor: RlSchedule; critic?: RlSchedule };
  };
  fit: { testFreq: number; saveFreq: number; valBeforeTrain: boolean; valBatchSize: number | null; valSampling: RolloutSampling };
  rollout: { mode: 'remote' | 'embedded'; subject: string; timeoutMs: number; maxResponseTokens: number };
  rewards: JobConfig['reward'] & { jitterSeed: number };
  resume: boolean;
  dumps: { validation: string | null; rollout: string | null };
  /** Deadlines of the policy worker's calls (trainer.worker_*_timeout_ms). */
  workerTimeouts: WorkerTimeouts;
}

/** Deadlines of the policy worker's calls: `updateMs` for updates, exports and embedded generation, `callMs` for the rest. */
export interface WorkerTimeouts {
  callMs: number;
  updateMs: number;
}

/** The worker deadlines of a job's `trainer.*` keys. */
export function workerTimeouts(t: { worker_call_timeout_ms: number; worker_update_timeout_ms: number }): WorkerTimeouts {
  return { callMs: t.worker_call_timeout_ms, updateMs: t.worker_update_timeout_ms };
}

/** An optimizer's schedule before the job's step count is known. */
export interface RlSchedule {
  kind: 'constant' | 'cosine';
  peakLr: number;
  /** null: warmupRatio x the job's steps (verl lr_warmup_steps -1). */
  warmupSteps: number | null;
  warmupRatio: number;
  minLrRatio: number;
  numCycles: number;
}

function schedule(o: {
  lr: number;
  lr_scheduler_type: 'constant' | 'cosine';
  lr_warmup_steps: number;
  lr_warmup_steps_ratio: number;
  min_lr_ratio: number;
  num_cycles: number;
}): RlSchedule {
  return {
    kind: o.lr_scheduler_type,
    peakLr: o.lr,
    warmupSteps: o.lr_warmup_steps > 0 ? o.lr_warmup_steps : null,
    warmupRatio: o.lr_warmup_steps_ratio,
    minLrRatio: o.min_lr_ratio,
    numCycles: o.num_cycles,
  };
}

function sampling(s: { temperature: number; top_p: number; top_k: number; n: number; do_sample: boolean }, maxTokens: number, seed: number): RolloutSampling {
  return { temperature: s.do_sample ? s.temperature : 0, topP: s.top_p, topK: s.top_k, n: s.n, maxTokens, seed };
}

/**
 * The datasets of an RL job: what the adapter reads before it can plan the
 * rest (the longest training prompt fixes the padded shape). {@link planRlJob}
 * carries the same plans.
 */
export function planRlDatasets(c: JobConfig, baseDir: string): Pick<RlJobPlan, 'train' | 'val'> {
  const { data } = c;
  const dataset = (files: string[], maxSamples: number): DatasetPlan => ({
    files: files.map((p) => resolve(baseDir, p)),
    promptKey: data.prompt_key,
    withoutContextKey: data.prompt_without_context_key,
    defaultDataSource: data.default_data_source,
    maxSamples,
    sampleRandomly: data.shuffle,
    seed: data.seed,
    filterMaxPromptLength: data.filter_overlong_prompts ? data.max_prompt_length : null,
  });
  return { train: dataset(data.train_files, data.train_max_samples), val: data.val_files.length > 0 ? dataset(data.val_files, data.val_max_samples) : null };
}

/** Plans an RL job. */
export function planRlJob(c: JobConfig, f: RlFacts): RlJobPlan {
  const path = (p: string) => resolve(f.baseDir, p);
  const { data, actor_rollout_ref: arr, critic, trainer } = c;
  const { actor, model: m } = arr;
  const loss = {
    clip_ratio_low: actor.clip_ratio_low,
    clip_ratio_high: actor.clip_ratio_high,
    clip_ratio_c: actor.clip_ratio_c,
    loss_agg_mode: actor.loss_agg_mode,
    entropy_coeff: actor.entropy_coeff,
    use_kl_loss: actor.use_kl_loss,
    kl_loss_coef: actor.kl_loss_coef,
    kl_loss_type: actor.kl_loss_type,
    loss_scale_factor: data.max_response_length,
    tau_pos: actor.tau_pos,
    tau_neg: actor.tau_neg,
    policy_loss: { ...actor.policy_loss, rollout_correction: RolloutCorrectionSchema.parse({}) },
  };
  const algorithm = AlgoConfig.parse({
    gamma: c.algorithm.gamma,
    lam: c.algorithm.lam,
    adv_estimator: c.algorithm.adv_estimator,
    norm_adv_by_std_in_grpo: c.algorithm.norm_adv_by_std_in_grpo,
    use_kl_in_reward: c.algorithm.use_kl_in_reward,
    kl_penalty: c.algorithm.kl_penalty,
    kl_ctrl: c.algorithm.kl_ctrl,
  });
  const n = arr.rollout.n;
  const criticDynamic = critic.use_dynamic_bsz ?? actor.use_dynamic_bsz;
  const worldSize = (s: Strategy) => (engineOf(s) === 'torch' ? trainer.n_gpus_per_node : 1);
  return {
    name: trainer.experiment_name,
    dir: path(trainer.default_local_dir),
    spec: {
      model: {
        tokenizer: f.tokenizer,
        architecture: m.architecture,
        d_model: m.d_model,
        n_layers: m.n_layers,
        n_heads: m.n_heads,
        n_kv_heads: m.n_kv_heads,
        head_dim: m.head_dim,
        d_ff: m.d_ff,
        max_seq_len: m.max_seq_len,
        seed: m.seed,
        path: f.modelDir,
      },
      ...(m.lora_rank > 0 && { lora: { rank: m.lora_rank, alpha: m.lora_alpha, target_modules: m.target_modules } }),
      engine: {
        kind: engineOf(actor.strategy),
        gradient_checkpointing: arr.model.enable_gradient_checkpointing,
        max_tokens: actor.use_dynamic_bsz ? actor.ppo_max_token_len_per_gpu : null,
        world_size: worldSize(actor.strategy),
        compile: actor.use_torch_compile,
      },
      optim: { lr: actor.optim.lr, weight_decay: actor.optim.weight_decay, betas: actor.optim.betas, grad_clip: actor.grad_clip },
      loss,
      weights: { bucket: c.rollout.weights_bucket, name: c.rollout.weights_name, format: c.rollout.weights_format },
      ...(critic.enable && {
        critic: {
          optim: { lr: critic.optim.lr, weight_decay: critic.optim.weight_decay, betas: critic.optim.betas, grad_clip: critic.grad_clip },
          cliprange_value: critic.cliprange_value,
          loss_agg_mode: critic.loss_agg_mode,
          loss_scale_factor: data.max_response_length,
          path: f.criticModelDir,
          seed: m.seed,
          engine: {
            kind: engineOf(critic.strategy ?? actor.strategy),
            gradient_checkpointing: arr.model.enable_gradient_checkpointing,
            max_tokens: criticDynamic ? (critic.ppo_max_token_len_per_gpu ?? actor.ppo_max_token_len_per_gpu) : null,
            world_size: worldSize(critic.strategy ?? actor.strategy),
            compile: actor.use_torch_compile,
          },
        },
      }),
    },
    ...planRlDatasets(c, f.baseDir),
    sampler: { batchSize: data.train_batch_size, shuffle: data.shuffle, seed: data.seed, mixWeights: data.mix_weights },
    totalSteps: trainer.total_training_steps,
    totalEpochs: trainer.total_epochs,
    step: {
      algorithm,
      sampling: sampling(arr.rollout, data.max_response_length, data.seed),
      loss: {
        ...loss,
        ppo_epochs: actor.ppo_epochs,
        ppo_mini_batch_size: actor.ppo_mini_batch_size * n,
        // With dynamic batches a mini-batch is one pass of the loss, cut by tokens inside the engine.
        // Per GPU, as verl counts it: a pass of N engine processes takes N times as many sequences.
        ppo_micro_batch_size: actor.use_dynamic_bsz ? null : perGpu(actor.ppo_micro_batch_size_per_gpu, worldSize(actor.strategy)),
        shuffle: actor.shuffle,
        data_loader_seed: actor.data_loader_seed,
        grad_clip: actor.grad_clip,
        lr: actor.optim.lr,
      },
      needRef: actor.use_kl_loss || algorithm.use_kl_in_reward,
      tokenRewardsKey: c.reward.token_rewards_key,
      // One padded shape for every log-prob and update batch: jax-js compiles per shape.
      widths: { promptWidth: widthBucket(Math.min(f.longestPromptTokens, data.max_prompt_length)), responseWidth: widthBucket(data.max_response_length) },
      signals: { enabled: c.reward.signals },
      schedules: { actor: schedule(actor.optim), ...(critic.enable && { critic: schedule(critic.optim) }) },
      ...(critic.enable && {
        critic: {
          warmup: trainer.critic_warmup,
          loss: {
            ppo_epochs: critic.ppo_epochs,
            ppo_mini_batch_size: critic.ppo_mini_batch_size * n,
            ppo_micro_batch_size: criticDynamic ? null : perGpu(critic.ppo_micro_batch_size_per_gpu, worldSize(critic.strategy ?? actor.strategy)),
            shuffle: critic.shuffle,
            data_loader_seed: critic.data_loader_seed,
            lr: critic.optim.lr,
          },
        },
      }),
    },
    fit: {
      testFreq: trainer.test_freq,
      saveFreq: trainer.save_freq,
      valBeforeTrain: trainer.val_before_train,
      valBatchSize: data.val_batch_size,
      valSampling: sampling(arr.rollout.val_kwargs, data.max_response_length, data.seed + 1_000_003),
    },
    rollout: { mode: c.rollout.mode, subject: c.rollout.subject, timeoutMs: c.rollout.timeout_ms, maxResponseTokens: data.max_response_length },
    rewards: { ...c.reward, jitterSeed: data.seed },
    resume: trainer.resume_mode === 'auto',
    dumps: {
      validation: trainer.validation_data_dir === null ? null : path(trainer.validation_data_dir),
      rollout: trainer.rollout_data_dir === null ? null : path(trainer.rollout_data_dir),
    },
    workerTimeouts: workerTimeouts(trainer),
  };
}

/** A per-GPU micro-batch size as sequences per pass of `processes` engine processes. */
function perGpu(micro: number | null, processes: number): number | null {
  return micro === null ? null : micro * processes;
}
