// One SFT job end to end (verl fsdp_sft_trainer): resolves the tokenizer and
// starting weights, plans the job (plan/sft-plan.ts), tokenizes the data,
// starts the policy worker, runs the loop with the learning-rate schedule,
// writes metrics, checkpoints in the RL layout and plots, and stops the worker
// whatever happens.
import { resolve } from 'node:path';
import { widthBucket } from '@rl/policy';
import type { SftJobConfig } from '../config/index.ts';
import { compatKeysSet } from '../config/compat-keys.ts';
import { warmupSteps } from '../core/lr-schedule.ts';
import { sftFit } from '../core/sft/sft-fit.ts';
import { createBatchSampler, loadSftDataset } from '../data/index.ts';
import type { JobContext } from '../jobs/job-manager.ts';
import { openMetricsLog } from '../metrics/index.ts';
import { planSftJob } from '../plan/sft-plan.ts';
import { renderPlots } from '../plots/index.ts';
import { fileCheckpointStore } from './checkpoint-store.ts';
import type { JobEnvironment } from './job-environment.ts';
import { checkModelLength, resolveModelSource } from './model-source.ts';
import { startJobWorker } from './policy-worker-process.ts';

export async function runSftJob(env: JobEnvironment, c: SftJobConfig, ctx: JobContext): Promise<void> {
  const m = c.model;
  const model = await resolveModelSource({
    path: m.partial_pretrain,
    tokenizer: m.tokenizer,
    baseDir: env.baseDir,
    pathField: 'model.partial_pretrain',
    tokenizerField: 'model.tokenizer',
  });
  checkModelLength(model, c.data.max_length, 'model.partial_pretrain', 'data.max_length');
  const plan = planSftJob(c, { baseDir: env.baseDir, tokenizer: model.tokenizer.config, modelDir: model.modelDir });
  const d = plan.data;
  const load = (files: readonly string[], maxSamples: number) =>
    loadSftDataset({ files, columns: d.columns, tokenizer: model.tokenizer, maxLength: d.maxLength, truncation: d.truncation, maxSamples, seed: plan.seed });
  const train = await load(d.train, d.trainMaxSamples);
  const val = d.val.length > 0 ? await load(d.val, d.valMaxSamples) : null;
  // verl's DistributedSampler shuffles the training set every epoch.
  const sampler = createBatchSampler(train, { batchSize: plan.batchSize, shuffle: true, seed: plan.seed });
  // verl fsdp_sft_trainer: the schedule spans steps_per_epoch * total_epochs even when total_training_steps stops earlier.
  const scheduleSteps = sampler.stepsPerEpoch * plan.totalEpochs;
  const totalSteps = plan.totalSteps ?? scheduleSteps;
  // Every batch padded to the longest prompt and response of the data: one compiled shape.
  const widths = {
    promptWidth: widthBucket(Math.max(train.maxPromptTokens, val?.maxPromptTokens ?? 1)),
    responseWidth: widthBucket(Math.max(train.maxResponseTokens, val?.maxResponseTokens ?? 1)),
  };
  const checkpoints = fileCheckpointStore(plan.dir);
  const resume = plan.resume ? await checkpoints.latest() : null;
  ctx.emit({
    type: 'log',
    job: ctx.id,
    message: `sft: ${train.rows.length} training sequences (${train.learnedTokens} learned tokens), ${val?.rows.length ?? 0} validation; ${totalSteps} steps; padded to ${widths.promptWidth}+${widths.responseWidth} tokens`,
  });
  if (resume !== null) ctx.emit({ type: 'log', job: ctx.id, message: `resuming from step ${resume.step} (${plan.dir})` });
  for (const { key, reason } of compatKeysSet(c))
    ctx.emit({ type: 'log', job: ctx.id, message: `${key}: accepted and ignored (verl compatibility): ${reason}` });

  const worker = await startJobWorker(env, ctx, plan.spec, plan.dir, resume === null ? null : checkpoints.workerDir(resume.step), plan.workerTimeouts);
  const metrics = await openMetricsLog(resolve(plan.dir, 'metrics.jsonl'), { keepUpToStep: resume?.step ?? 0 });
  try {
    await sftFit({
      job: ctx.id,
      policy: {
        sftStep: async (micro, lr, step, w) => {
          const out = await worker.sftStep({
            step,
            lr,
            prompt_width: w.promptWidth,
            response_width: w.responseWidth,
            micro_batches: micro.map((mb) => mb.map((r) => ({ prompt: r.prompt, response: r.response, loss_mask: r.lossMask }))),
          });
          return { loss: out.loss, gradNorm: out.grad_norm, skipped: out.skipped };
        },
        logprobs: async (pairs, w) => (await worker.logprobs('actor', pairs, false, w)).logprobs,
        export: (publish, checkpointDir) => worker.export(publish, checkpointDir),
      },
      sampler,
      valRows: val?.rows ?? [],
      microBatchSize: plan.microBatchSize,
      widths,
      schedule: {
        kind: plan.schedule.kind,
        peakLr: plan.schedule.peakLr,
        warmupSteps: warmupSteps(scheduleSteps, plan.schedule.warmupRatio),
        totalSteps: scheduleSteps,
      },
      totalSteps,
      testFreq: plan.testFreq,
      saveFreq: plan.saveFreq,
      valBeforeTrain: plan.valBeforeTrain,
      checkpoints,
      metrics,
      resume,
      initialSampler: sampler.initialState,
      emit: ctx.emit,
      signal: ctx.signal,
      now: () => performance.now() / 1000,
    });
    // The job's final models, whether or not its last step was a checkpoint.
    for (const path of await worker.exportFinalModels()) ctx.emit({ type: 'log', job: ctx.id, message: `final model (Hugging Face directory): ${path}` });
  } finally {
    await metrics.close();
    await worker.stop();
    await renderPlots(resolve(plan.dir, 'metrics.jsonl'), resolve(plan.dir, 'plots')).catch((err: unknown) => env.logger.warn({ err }, 'plots not written'));
  }
}
