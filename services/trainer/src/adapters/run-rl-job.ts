// One RL job end to end: resolves the model and data facts, plans the job
// (plan/rl-plan.ts), builds the datasets, the policy worker process, the
// rollout, reward and policy clients from the plan, runs the loop, writes the
// plots, and stops the worker whatever happens.
import { basename, resolve } from 'node:path';
import { createRng } from '@rl/service-kit';
import type { ChatMessage } from '@rl/policy';
import { createKlController } from '../core/algos/index.ts';
import { fit } from '../core/controller/fit.ts';
import { createEmbeddedRollout } from '../core/controller/rollout-embedded.ts';
import { createRewardCache, NO_REWARD_CACHE } from '../core/controller/reward-stream.ts';
import { toMessages } from '../core/controller/to-messages.ts';
import type { JobConfig } from '../config/index.ts';
import type { DatasetRow, Prompt } from '../data/index.ts';
import { compatKeysSet } from '../config/compat-keys.ts';
import { checkPromptLengths, checkSignalRows, createBatchSampler, loadDataset, type CountTokens, type LoadDatasetOptions } from '../data/index.ts';
import type { JobContext } from '../jobs/job-manager.ts';
import { openMetricsLog } from '../metrics/index.ts';
import { planRlDatasets, planRlJob, type DatasetPlan, type RlJobPlan, type RlSchedule } from '../plan/rl-plan.ts';
import { lrAtStep, warmupSteps } from '../core/lr-schedule.ts';
import { renderPlots } from '../plots/index.ts';
import { createRewardClient, natsScoreTransport } from '@rl/client';
import { rewardClientOptions, signalsPredicate } from '../rewards/index.ts';
import { fileCheckpointStore } from './checkpoint-store.ts';
import { fileGenerationDump } from './generation-dump-files.ts';
import type { JobEnvironment } from './job-environment.ts';
import { checkModelLength, resolveModelDir, resolveModelSource } from './model-source.ts';
import { createOtelTrace } from './otel-trace.ts';
import { startJobWorker } from './policy-worker-process.ts';
import { withWorkerRestarts } from './worker-restarts.ts';
import { createRemoteRollout } from './remote-rollout.ts';
import { FINAL_MODEL_DIRS } from '../policy/checkpoint-layout.ts';

function datasetOptions(p: DatasetPlan, countTokens: CountTokens): LoadDatasetOptions {
  const { filterMaxPromptLength, ...rest } = p;
  return { ...rest, ...(filterMaxPromptLength !== null && { filter: { maxPromptLength: filterMaxPromptLength, countTokens } }) };
}

export async function runRlJob(env: JobEnvironment, c: JobConfig, ctx: JobContext): Promise<void> {
  const m = c.actor_rollout_ref.model;
  const model = await resolveModelSource({
    path: m.path,
    tokenizer: m.tokenizer,
    baseDir: env.baseDir,
    pathField: 'actor_rollout_ref.model.path',
    tokenizerField: 'actor_rollout_ref.model.tokenizer',
  });
  checkModelLength(
    model,
    c.data.max_prompt_length + c.data.max_response_length,
    'actor_rollout_ref.model.path',
    'data.max_prompt_length + data.max_response_length',
  );
  const tokenizer = model.tokenizer;
  const decode = (ids: readonly number[]) => tokenizer.decode(ids);
  const promptIds = (prompt: Prompt) => tokenizer.applyChatTemplate(toMessages({ prompt }) as ChatMessage[], { addGenerationPrompt: true });
  const countTokens: CountTokens = (prompt) => promptIds(prompt).length;
  // The training data is read before planning: the longest prompt fixes the padded shape.
  const datasets = planRlDatasets(c, env.baseDir);
  const train = await loadDataset(datasetOptions(datasets.train, countTokens));
  const needsSignals = signalsPredicate(c.reward.routes, c.reward.signals);
  checkSignalRows(train, needsSignals, c.data.prompt_without_context_key);
  const signalRows = train.rows.filter((r) => r.prompt_without_context !== null && needsSignals(r.data_source));
  const plan = planRlJob(c, {
    baseDir: env.baseDir,
    tokenizer: tokenizer.config,
    modelDir: model.modelDir,
    criticModelDir: c.critic.model.path === null ? null : await resolveModelDir(resolve(env.baseDir, c.critic.model.path), 'critic.model.path', 'critic'),
    longestPromptTokens: train.rows.reduce((n, r) => Math.max(n, countTokens(r.prompt)), 1),
  });
  const val = plan.val === null ? null : await loadDataset(datasetOptions(plan.val, countTokens));
  if (plan.train.filterMaxPromptLength === null) {
    for (const d of [train, val]) if (d !== null) checkPromptLengths(d, countTokens, c.data.max_prompt_length);
  }
  for (const { key, reason } of compatKeysSet(c))
    ctx.emit({ type: 'log', job: ctx.id, message: `${key}: accepted and ignored (verl compatibility): ${reason}` });
  const sampler = createBatchSampler(train, plan.sampler);
  const totalSteps = plan.totalSteps ?? sampler.stepsPerEpoch * plan.totalEpochs;
  const store = fileCheckpointStore(plan.dir);
  const start = plan.resume ? await store.latest() : null;
  if (start !== null) ctx.emit({ type: 'log', job: ctx.id, message: `resuming from step ${start.step} (${plan.dir})` });

  await withWorkerRestarts(ctx, store, start, async (resume, checkpoints) => {
    const worker = await startJobWorker(env, ctx, plan.spec, plan.dir, resume === null ? null : checkpoints.workerDir(resume.step), plan.workerTimeouts);
    const metrics = await openMetricsLog(resolve(plan.dir, 'metrics.jsonl'), { keepUpToStep: resume?.step ?? 0 });
    try {
      const { algorithm } = plan.step;
      const kl = algorithm.use_kl_in_reward ? createKlController(algorithm.kl_ctrl, resume?.kl_coef ?? algorithm.kl_ctrl.kl_coef) : undefined;
      const rollout =
        plan.rollout.mode === 'embedded'
          ? createEmbeddedRollout(worker, tokenizer)
          : createRemoteRollout(env.nc, plan.rollout.subject, plan.rollout.timeoutMs, plan.rollout.maxResponseTokens);
      const rewards = createRewardClient(rewardClientOptions(plan.rewards, natsScoreTransport(env.nc), createRng(plan.rewards.jitterSeed)));
      const signals =
        signalRows.length === 0
          ? undefined
          : {
              needs: needsSignals,
              promptIds: (row: DatasetRow) => promptIds(row.prompt_without_context ?? row.prompt),
              promptWidth: Math.min(
                c.data.max_prompt_length,
                signalRows.reduce((n, r) => Math.max(n, countTokens(r.prompt_without_context!)), 1),
              ),
            };
      const dump = (dir: string | null) => (dir === null ? undefined : { sink: fileGenerationDump(dir), decode });
      const rolloutDump = dump(plan.dumps.rollout);
      const validationDump = dump(plan.dumps.validation);
      const trace = createOtelTrace();
      await fit({
        job: ctx.id,
        trace,
        step: {
          ...plan.step,
          lr: scheduledLr(plan.step.schedules, totalSteps),
          signals,
          policy: worker,
          rollout,
          rewards,
          rewardFlow: {
            // Embedded rollouts hand over the batch at its end: nothing to overlap.
            streaming: plan.rewards.stream && plan.rollout.mode === 'remote',
            cache: plan.rewards.cache ? createRewardCache({ acrossSteps: true, maxReusable: REUSABLE_REWARDS }) : NO_REWARD_CACHE,
            maxInFlight: plan.rewards.concurrency,
          },
          ...(kl && { kl }),
          ...(rolloutDump && { rolloutDump }),
          trace,
          signal: ctx.signal,
        },
        sampler,
        valData: val,
        valBatchSize: plan.fit.valBatchSize,
        valSampling: plan.fit.valSampling,
        rollout,
        rewards,
        ...(kl && { kl }),
        totalSteps,
        testFreq: plan.fit.testFreq,
        saveFreq: plan.fit.saveFreq,
        valBeforeTrain: plan.fit.valBeforeTrain,
        ...(validationDump && { validationDump }),
        checkpoints,
        metrics,
        resume,
        initialSampler: sampler.initialState,
        emit: ctx.emit,
        signal: ctx.signal,
      });
      // The job's final models, whether or not its last step was a checkpoint.
      for (const path of await worker.exportFinalModels()) {
        const what = basename(path) === FINAL_MODEL_DIRS.loraAdapter ? 'PEFT LoRA adapter' : 'Hugging Face directory';
        ctx.emit({ type: 'log', job: ctx.id, message: `final model (${what}): ${path}` });
      }
    } finally {
      await metrics.close();
      await worker.stop();
      await renderPlots(resolve(plan.dir, 'metrics.jsonl'), resolve(plan.dir, 'plots')).catch((err: unknown) => env.logger.warn({ err }, 'plots not written'));
    }
  });
}

/** Results of deterministic scorers kept across steps (a few hundred bytes each). */
const REUSABLE_REWARDS = 100_000;

/** Each model's learning rate at a training step, over the job's `totalSteps` (verl steps the actor's and critic's schedulers once per training step). */
function scheduledLr(s: RlJobPlan['step']['schedules'], totalSteps: number) {
  const at = (r: RlSchedule) => (step: number) => lrAtStep({ ...r, warmupSteps: r.warmupSteps ?? warmupSteps(totalSteps, r.warmupRatio), totalSteps }, step);
  const critic = s.critic;
  return { actor: at(s.actor), ...(critic !== undefined && { critic: at(critic) }) };
}
