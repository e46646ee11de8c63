// One RL job end to end: builds the datasets, the policy worker process,
// the rollout, reward and policy clients from the validated config, runs the
// loop, writes the plots, and stops the worker whatever happens.
import { resolve } from 'node:path';
import { createRng } from '@rl/shared';
import { widthBucket, type ChatMessage } from '@rl/shared/policy';
import { AlgoConfig, createKlController } from '../core/algos/index.ts';
import { fileCheckpointStore } from './checkpoint-store.ts';
import { fileGenerationDump } from './generation-dump-files.ts';
import { fit } from '../core/controller/fit.ts';
import type { RolloutSampling } from '../core/controller/ports.ts';
import { createEmbeddedRollout } from '../core/controller/rollout-embedded.ts';
import { createRemoteRollout, toMessages } from '../core/controller/rollout-remote.ts';
import type { JobConfig } from '../config/index.ts';
import { createBatchSampler, loadDataset, samplerOptions, trainDatasetOptions, valDatasetOptions, type CountTokens } from '../data/index.ts';
import type { JobContext } from '../jobs/job-manager.ts';
import { openMetricsLog } from '../metrics/index.ts';
import { renderPlots } from '../plots/index.ts';
import { RolloutCorrectionSchema } from '../policy/protocol.ts';
import type { WorkerSpec } from '../policy/worker-spec.ts';
import { createRewardClient, natsScoreTransport, rewardClientOptions } from '../rewards/index.ts';
import { jobDir, type JobEnvironment } from './job-environment.ts';
import { resolveModelSource, resolveWeightsFile } from './model-source.ts';
import { startPolicyWorker } from './policy-worker-process.ts';

function sampling(s: { temperature: number; top_p: number; top_k: number; n: number; do_sample: boolean }, maxTokens: number, seed: number): RolloutSampling {
  return { temperature: s.do_sample ? s.temperature : 0, topP: s.top_p, topK: s.top_k, n: s.n, maxTokens, seed };
}

export async function runRlJob(env: JobEnvironment, c: JobConfig, ctx: JobContext): Promise<void> {
  const dir = jobDir(env, c);
  const m = c.actor_rollout_ref.model;
  const model = await resolveModelSource({ path: m.path, tokenizer: m.tokenizer, baseDir: env.baseDir, pathField: 'actor_rollout_ref.model.path', tokenizerField: 'actor_rollout_ref.model.tokenizer' });
  const tokenizer = model.tokenizer;
  const decode = (ids: readonly number[]) => tokenizer.decode(ids);
  const countTokens: CountTokens = (prompt) => tokenizer.applyChatTemplate(toMessages({ prompt }) as ChatMessage[], { addGenerationPrompt: true }).length;
  const files = (xs: readonly string[]) => xs.map((f) => resolve(env.baseDir, f));
  const data = { ...c.data, train_files: files(c.data.train_files), val_files: files(c.data.val_files) };
  const train = await loadDataset(trainDatasetOptions(data, countTokens));
  const val = data.val_files.length > 0 ? await loadDataset(valDatasetOptions(data, countTokens)) : null;
  const sampler = createBatchSampler(train, samplerOptions(data));
  // One padded shape for every log-prob and update batch: jax-js compiles per shape.
  const longestPrompt = train.rows.reduce((n, r) => Math.max(n, countTokens(r.prompt)), 1);
  const widths = { promptWidth: widthBucket(Math.min(longestPrompt, c.data.max_prompt_length)), responseWidth: widthBucket(c.data.max_response_length) };
  const totalSteps = c.trainer.total_training_steps ?? sampler.stepsPerEpoch * c.trainer.total_epochs;
  const checkpoints = fileCheckpointStore(dir);
  const resume = c.trainer.resume_mode === 'auto' ? await checkpoints.latest() : null;
  if (resume !== null) ctx.emit({ type: 'log', job: ctx.id, message: `resuming from step ${resume.step} (${dir})` });

  const actor = c.actor_rollout_ref.actor;
  const spec: WorkerSpec = {
    job: ctx.id,
    model: { tokenizer: tokenizer.config, d_model: m.d_model, n_layers: m.n_layers, n_heads: m.n_heads, d_ff: m.d_ff, max_seq_len: m.max_seq_len, seed: m.seed, path: model.weightsFile },
    optim: { lr: actor.optim.lr, weight_decay: actor.optim.weight_decay, betas: actor.optim.betas, grad_clip: actor.grad_clip },
    loss: {
      clip_ratio_low: actor.clip_ratio_low, clip_ratio_high: actor.clip_ratio_high, clip_ratio_c: actor.clip_ratio_c, loss_agg_mode: actor.loss_agg_mode,
      entropy_coeff: actor.entropy_coeff, use_kl_loss: actor.use_kl_loss, kl_loss_coef: actor.kl_loss_coef, kl_loss_type: actor.kl_loss_type,
      loss_scale_factor: c.data.max_response_length,
      tau_pos: actor.tau_pos, tau_neg: actor.tau_neg,
      policy_loss: { ...actor.policy_loss, rollout_correction: RolloutCorrectionSchema.parse({}) },
    },
    weights: { bucket: c.rollout.weights_bucket, name: c.rollout.weights_name },
    ...(c.critic.enable && {
      critic: {
        optim: { lr: c.critic.optim.lr, weight_decay: c.critic.optim.weight_decay, betas: c.critic.optim.betas, grad_clip: c.critic.grad_clip },
        cliprange_value: c.critic.cliprange_value, loss_agg_mode: c.critic.loss_agg_mode, loss_scale_factor: c.data.max_response_length,
        path: c.critic.model.path === null ? null : await resolveWeightsFile(resolve(env.baseDir, c.critic.model.path), 'critic.model.path'),
        seed: m.seed,
      },
    }),
  };
  const worker = await startPolicyWorker({
    nc: env.nc, natsUrl: env.natsUrl, spec, dir, resumeDir: resume === null ? null : checkpoints.policyDir(resume.step),
    timeouts: { callMs: 120_000, updateMs: 600_000 }, signal: ctx.signal, logLevel: env.logLevel,
  });
  const metrics = await openMetricsLog(resolve(dir, 'metrics.jsonl'), { keepUpToStep: resume?.step ?? 0 });
  try {
    const algorithm = AlgoConfig.parse({
      gamma: c.algorithm.gamma, lam: c.algorithm.lam, adv_estimator: c.algorithm.adv_estimator, norm_adv_by_std_in_grpo: c.algorithm.norm_adv_by_std_in_grpo,
      use_kl_in_reward: c.algorithm.use_kl_in_reward, kl_penalty: c.algorithm.kl_penalty, kl_ctrl: c.algorithm.kl_ctrl,
    });
    const kl = algorithm.use_kl_in_reward ? createKlController(algorithm.kl_ctrl, resume?.kl_coef ?? algorithm.kl_ctrl.kl_coef) : undefined;
    const rollout = c.rollout.mode === 'embedded'
      ? createEmbeddedRollout(worker, tokenizer)
      : createRemoteRollout(env.nc, c.rollout.subject, c.rollout.timeout_ms, c.data.max_response_length);
    const rewards = createRewardClient(rewardClientOptions(c.reward, natsScoreTransport(env.nc), createRng(data.seed)));
    const seed = data.seed;
    await fit({
      job: ctx.id,
      step: {
        policy: worker, rollout, rewards, algorithm, ...(kl && { kl }),
        sampling: sampling(c.actor_rollout_ref.rollout, c.data.max_response_length, seed),
        loss: {
          ...spec.loss!, ppo_epochs: actor.ppo_epochs, ppo_mini_batch_size: actor.ppo_mini_batch_size * c.actor_rollout_ref.rollout.n,
          ppo_micro_batch_size: actor.ppo_micro_batch_size_per_gpu, shuffle: actor.shuffle, data_loader_seed: actor.data_loader_seed,
          grad_clip: actor.grad_clip, lr: actor.optim.lr,
        },
        needRef: actor.use_kl_loss || algorithm.use_kl_in_reward,
        tokenRewardsKey: c.reward.token_rewards_key,
        widths,
        ...(c.critic.enable && {
          critic: {
            warmup: c.trainer.critic_warmup,
            loss: {
              ppo_epochs: c.critic.ppo_epochs, ppo_mini_batch_size: c.critic.ppo_mini_batch_size * c.actor_rollout_ref.rollout.n,
              ppo_micro_batch_size: c.critic.ppo_micro_batch_size_per_gpu, shuffle: c.critic.shuffle, data_loader_seed: c.critic.data_loader_seed, lr: c.critic.optim.lr,
            },
          },
        }),
        ...(c.trainer.rollout_data_dir !== null && { rolloutDump: { sink: fileGenerationDump(resolve(env.baseDir, c.trainer.rollout_data_dir)), decode } }),
        signal: ctx.signal,
      },
      sampler, valData: val, valBatchSize: c.data.val_batch_size,
      valSampling: sampling(c.actor_rollout_ref.rollout.val_kwargs, c.data.max_response_length, seed + 1_000_003),
      rollout, rewards, ...(kl && { kl }),
      totalSteps, testFreq: c.trainer.test_freq, saveFreq: c.trainer.save_freq, valBeforeTrain: c.trainer.val_before_train,
      ...(c.trainer.validation_data_dir !== null && { validationDump: { sink: fileGenerationDump(resolve(env.baseDir, c.trainer.validation_data_dir)), decode } }),
      checkpoints, metrics, resume, initialSampler: sampler.initialState, emit: ctx.emit, signal: ctx.signal,
    });
  } finally {
    await metrics.close();
    await worker.stop();
    await renderPlots(resolve(dir, 'metrics.jsonl'), resolve(dir, 'plots')).catch((err: unknown) => env.logger.warn({ err }, 'plots not written'));
  }
}
