// One SFT job end to end (verl fsdp_sft_trainer): tokenizes the data with the
// model's tokenizer, starts the policy worker (random init or
// model.partial_pretrain), runs the loop with the learning-rate schedule,
// writes metrics, checkpoints in the RL layout and plots, and stops the worker
// whatever happens.
import { resolve } from 'node:path';
import { widthBucket } from '@rl/shared/policy';
import type { SftJobConfig } from '../config/index.ts';
import { sftFit } from '../core/sft/sft-fit.ts';
import { warmupSteps } from '../core/sft/lr-schedule.ts';
import { createBatchSampler, loadSftDataset, type SftColumns } from '../data/index.ts';
import type { JobContext } from '../jobs/job-manager.ts';
import { openMetricsLog } from '../metrics/index.ts';
import { renderPlots } from '../plots/index.ts';
import type { WorkerSpec } from '../policy/worker-spec.ts';
import { fileCheckpointStore } from './checkpoint-store.ts';
import { jobDir, type JobEnvironment } from './job-environment.ts';
import { resolveModelSource } from './model-source.ts';
import { startPolicyWorker } from './policy-worker-process.ts';

export async function runSftJob(env: JobEnvironment, c: SftJobConfig, ctx: JobContext): Promise<void> {
  const dir = jobDir(env, c);
  const m = c.model;
  const model = await resolveModelSource({ path: m.partial_pretrain, tokenizer: m.tokenizer, baseDir: env.baseDir, pathField: 'model.partial_pretrain', tokenizerField: 'model.tokenizer' });
  const d = c.data;
  const columns: SftColumns = {
    promptKey: d.prompt_key, responseKey: d.response_key, promptDictKeys: d.prompt_dict_keys ?? [], responseDictKeys: d.response_dict_keys ?? [],
    messagesKey: d.multiturn.enable ? d.multiturn.messages_key : null,
  };
  const load = (files: readonly string[], maxSamples: number) => loadSftDataset({
    files: files.map((f) => resolve(env.baseDir, f)), columns, tokenizer: model.tokenizer, maxLength: d.max_length, truncation: d.truncation, maxSamples, seed: c.trainer.seed,
  });
  const train = await load(d.train_files, d.train_max_samples);
  const val = d.val_files.length > 0 ? await load(d.val_files, d.val_max_samples) : null;
  // verl's DistributedSampler shuffles the training set every epoch.
  const sampler = createBatchSampler(train, { batchSize: d.train_batch_size, shuffle: true, seed: c.trainer.seed });
  // verl fsdp_sft_trainer: the schedule spans steps_per_epoch * total_epochs even when total_training_steps stops earlier.
  const scheduleSteps = sampler.stepsPerEpoch * c.trainer.total_epochs;
  const totalSteps = c.trainer.total_training_steps ?? scheduleSteps;
  const widths = {
    promptWidth: widthBucket(Math.max(train.maxPromptTokens, val?.maxPromptTokens ?? 1)),
    responseWidth: widthBucket(Math.max(train.maxResponseTokens, val?.maxResponseTokens ?? 1)),
  };
  const checkpoints = fileCheckpointStore(dir);
  const resume = c.trainer.resume_mode === 'auto' ? await checkpoints.latest() : null;
  ctx.emit({ type: 'log', job: ctx.id, message: `sft: ${train.rows.length} training sequences (${train.learnedTokens} learned tokens), ${val?.rows.length ?? 0} validation; ${totalSteps} steps; padded to ${widths.promptWidth}+${widths.responseWidth} tokens` });
  if (resume !== null) ctx.emit({ type: 'log', job: ctx.id, message: `resuming from step ${resume.step} (${dir})` });

  const spec: WorkerSpec = {
    job: ctx.id,
    model: { tokenizer: model.tokenizer.config, d_model: m.d_model, n_layers: m.n_layers, n_heads: m.n_heads, d_ff: m.d_ff, max_seq_len: m.max_seq_len, seed: m.seed, path: model.weightsFile },
    optim: { lr: c.optim.lr, weight_decay: c.optim.weight_decay, betas: c.optim.betas, grad_clip: c.optim.clip_grad },
    weights: { bucket: 'rl-policy', name: `sft-${ctx.id}` },
  };
  const worker = await startPolicyWorker({
    nc: env.nc, natsUrl: env.natsUrl, spec, dir, resumeDir: resume === null ? null : checkpoints.policyDir(resume.step),
    timeouts: { callMs: 120_000, updateMs: 600_000 }, signal: ctx.signal, logLevel: env.logLevel,
  });
  const metrics = await openMetricsLog(resolve(dir, 'metrics.jsonl'), { keepUpToStep: resume?.step ?? 0 });
  try {
    await sftFit({
      job: ctx.id,
      policy: {
        sftStep: async (micro, lr, step, w) => {
          const out = await worker.sftStep({
            step, lr, prompt_width: w.promptWidth, response_width: w.responseWidth,
            micro_batches: micro.map((mb) => mb.map((r) => ({ prompt: r.prompt, response: r.response, loss_mask: r.lossMask }))),
          });
          return { loss: out.loss, gradNorm: out.grad_norm, skipped: out.skipped };
        },
        logprobs: async (pairs, w) => (await worker.logprobs('actor', pairs, false, w)).logprobs,
        export: (publish, checkpointDir) => worker.export(publish, checkpointDir),
      },
      sampler, valRows: val?.rows ?? [], microBatchSize: d.micro_batch_size_per_gpu, widths,
      schedule: { kind: c.optim.lr_scheduler, peakLr: c.optim.lr, warmupSteps: warmupSteps(scheduleSteps, c.optim.lr_warmup_steps_ratio), totalSteps: scheduleSteps },
      totalSteps, testFreq: c.trainer.test_freq, saveFreq: c.trainer.save_freq, valBeforeTrain: c.trainer.val_before_train,
      checkpoints, metrics, resume, initialSampler: sampler.initialState, emit: ctx.emit, signal: ctx.signal,
      now: () => performance.now() / 1000,
    });
  } finally {
    await metrics.close();
    await worker.stop();
    await renderPlots(resolve(dir, 'metrics.jsonl'), resolve(dir, 'plots')).catch((err: unknown) => env.logger.warn({ err }, 'plots not written'));
  }
}
