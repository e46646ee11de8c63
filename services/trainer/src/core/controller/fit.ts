// The training loop (verl RayPPOTrainer.fit): optional validation before
// training, then steps until total_training_steps, validating every test_freq
// and checkpointing every save_freq (both also at the last step when on), resuming from the latest
// checkpoint. Emits one event per step; metrics go to metrics.jsonl. Each step
// (its attempts, validation and checkpoint included) is one trace: root span
// `trainer.step`, children per stage (step.ts), `testing` and `save_checkpoint`
// (verl's timing names); a validation before training is a `trainer.validate` trace.
import type { JobEvent } from '../../jobs/job-events.ts';
import type { BatchSampler, SamplerState } from '../../data/batch-sampler.ts';
import type { Dataset } from '../../data/dataset.ts';
import type { MetricsRecord } from '../../metrics/step-metrics.ts';
// The pure module, not the barrel: the barrel also holds the jsonl file I/O.
import { buildStepMetrics } from '../../metrics/step-metrics.ts';
import type { RewardClient } from '@rl/client';
import type { KlController } from '../algos/index.ts';
import type { GenerationDump } from './generation-dump.ts';
import type { CheckpointStore, TrainerState } from './trainer-state.ts';
import { NO_TRACE, type MetricsLog, type RolloutPort, type RolloutSampling, type TracePort } from './ports.ts';
import { describeStepRetry, retryStep, type StepRetryOptions } from './retry-step.ts';
import { runStep, type StepContext } from './step.ts';
import { validate } from './validate.ts';

/** The loop's inputs (everything already built). */
export interface FitContext {
  job: string;
  step: StepContext;
  sampler: BatchSampler;
  valData: Dataset | null;
  valBatchSize: number | null;
  valSampling: RolloutSampling;
  rollout: RolloutPort;
  rewards: RewardClient;
  kl?: KlController;
  totalSteps: number;
  testFreq: number;
  saveFreq: number;
  valBeforeTrain: boolean;
  checkpoints: CheckpointStore;
  /** trainer.validation_data_dir: the dump of every validation's generations. */
  validationDump?: { sink: GenerationDump; decode(ids: readonly number[]): string };
  metrics: MetricsLog;
  /** Where the loop starts: a fresh start or the latest checkpoint. */
  resume: TrainerState | null;
  initialSampler: SamplerState;
  emit(e: JobEvent): void;
  signal: AbortSignal;
  /** Retries of a step that failed on the bus (retry-step.ts); its defaults when absent. */
  stepRetry?: StepRetryOptions;
  /** Spans of the loop (the stages' come from `step.trace`); none when absent. */
  trace?: TracePort;
}

const flat = (r: MetricsRecord): Record<string, number> & { step: number } => {
  const out: Record<string, number> & { step: number } = { step: r.step };
  for (const [k, v] of Object.entries(r)) if (typeof v === 'number') out[k] = v;
  return out;
};

/** Runs the job to its last step; returns the final weights version. */
export async function fit(c: FitContext): Promise<string> {
  let state = c.resume?.sampler ?? c.initialSampler;
  let step = c.resume?.step ?? 0;
  // The policy worker publishes what it holds (fresh or restored) so rollouts have weights.
  let version = await c.step.policy.export(true);
  const runValidation = async () => {
    if (c.valData === null || c.valData.rows.length === 0) return {};
    const m = await validate({
      data: c.valData,
      batchSize: c.valBatchSize,
      rollout: c.rollout,
      rewards: c.rewards,
      sampling: c.valSampling,
      version,
      signal: c.signal,
      step,
      ...(c.validationDump && { dump: c.validationDump }),
    });
    c.emit({ type: 'validation', job: c.job, step, metrics: m });
    return m;
  };
  const trace = c.trace ?? NO_TRACE;
  if (step === 0 && c.valBeforeTrain) {
    await trace.root('trainer.validate', { job: c.job, step: 0 }, async () => {
      const m = await trace.span('testing', runValidation);
      if (Object.keys(m).length > 0) await c.metrics.append(buildStepMetrics({ step: 0, epoch: 0, scalars: m }));
    });
  }
  while (step < c.totalSteps) {
    c.signal.throwIfAborted();
    const batch = c.sampler.nextBatch(state);
    step += 1;
    await trace.root('trainer.step', { job: c.job, step, epoch: batch.epoch }, async () => {
      // An attempt that reached the advantages may have moved an adaptive KL coefficient: every attempt starts from the same one.
      const klBefore = c.kl?.value;
      const attempt = () => {
        if (klBefore !== undefined) c.kl!.restore(klBefore);
        return runStep(c.step, step, batch.epoch, batch.rows, version);
      };
      const out = await retryStep(step, attempt, {
        signal: c.signal,
        onRetry: (r) => c.emit({ type: 'log', job: c.job, message: describeStepRetry(r) }),
        ...c.stepRetry,
      });
      version = out.version;
      state = batch.state;
      const last = step === c.totalSteps;
      let record = out.metrics;
      record['data/first_row_id'] = batch.rows[0]?.row_id ?? -1;
      if (c.kl !== undefined) record['actor/kl_coef'] = c.kl.value;
      // verl: validate and save only when their frequencies are on, then also at the last step.
      if (c.testFreq > 0 && (step % c.testFreq === 0 || last)) record = { ...record, ...(await trace.span('testing', runValidation)) };
      await c.metrics.append(record);
      c.emit({ type: 'step', job: c.job, step, total_steps: c.totalSteps, metrics: flat(record) });
      if (c.saveFreq > 0 && (step % c.saveFreq === 0 || last)) {
        await trace.span('save_checkpoint', async () => {
          await c.step.policy.export(false, c.checkpoints.workerDir(step));
          const dir = await c.checkpoints.commit({ step, sampler: state, kl_coef: c.kl?.value ?? null, version });
          c.emit({ type: 'checkpoint', job: c.job, step, dir });
        });
      }
    });
  }
  return version;
}
