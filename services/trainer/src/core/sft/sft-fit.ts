// The SFT loop (verl fsdp_sft_trainer.fit): optional validation before
// training, then steps until total_training_steps; each step is one optimizer
// step over micro-batches at the scheduled learning rate. The validation loss
// runs every test_freq steps and at the last step, a checkpoint every
// save_freq steps and at the last step (both as verl's SFT trainer does).
import type { BatchSampler, SamplerState } from '../../data/batch-sampler.ts';
import type { SftSequence } from '../../data/sft/sft-tokenize.ts';
import type { JobEvent } from '../../jobs/job-events.ts';
import type { MetricsRecord } from '../../metrics/step-metrics.ts';
import type { MetricsLog } from '../controller/ports.ts';
// Pure modules, not the barrel: it also holds the jsonl file I/O.
import { MetricKey } from '../../metrics/metric-keys.ts';
import { buildStepMetrics } from '../../metrics/step-metrics.ts';
import type { CheckpointStore, TrainerState } from '../controller/trainer-state.ts';
import { lrAtStep, type LrSchedule } from '../lr-schedule.ts';
import type { PadWidths } from '../controller/ports.ts';
import type { SftPolicyPort } from './ports.ts';
import { microBatches, tokenMeanNll } from './sft-loss.ts';

/** The loop's inputs (everything already built). */
export interface SftFitContext {
  job: string;
  policy: SftPolicyPort;
  sampler: BatchSampler<SftSequence>;
  valRows: readonly SftSequence[];
  microBatchSize: number;
  widths: PadWidths;
  schedule: LrSchedule;
  totalSteps: number;
  testFreq: number;
  saveFreq: number;
  valBeforeTrain: boolean;
  checkpoints: CheckpointStore;
  metrics: MetricsLog;
  resume: TrainerState | null;
  initialSampler: SamplerState;
  emit(e: JobEvent): void;
  signal: AbortSignal;
  /** Wall clock in seconds (injected so the loop stays deterministic under test). */
  now(): number;
}

/** verl validation_step over batches of micro_batch_size (the last partial batch dropped): the mean of the batch losses. */
export async function validationLoss(policy: SftPolicyPort, rows: readonly SftSequence[], batchSize: number, widths: PadWidths): Promise<number | null> {
  const losses: number[] = [];
  for (const batch of microBatches(rows, batchSize)) {
    if (batch.length < batchSize) break;
    const lp = await policy.logprobs(
      batch.map((r) => ({ prompt: r.prompt, response: r.response })),
      widths,
    );
    losses.push(
      tokenMeanNll(
        lp,
        batch.map((r) => r.lossMask),
      ),
    );
  }
  return losses.length === 0 ? null : losses.reduce((a, b) => a + b, 0) / losses.length;
}

const flat = (r: MetricsRecord): Record<string, number> & { step: number } => {
  const out: Record<string, number> & { step: number } = { step: r.step };
  for (const [k, v] of Object.entries(r)) if (typeof v === 'number') out[k] = v;
  return out;
};

/** Runs the SFT job to its last step; returns the final weights version. */
export async function sftFit(c: SftFitContext): Promise<string> {
  let state = c.resume?.sampler ?? c.initialSampler;
  let step = c.resume?.step ?? 0;
  let version = c.resume?.version ?? 'v0';
  const validate = async (): Promise<Record<string, number>> => {
    if (c.valRows.length === 0) return {};
    const loss = await validationLoss(c.policy, c.valRows, c.microBatchSize, c.widths);
    if (loss === null) return {};
    c.emit({ type: 'validation', job: c.job, step, metrics: { [MetricKey.SftValLoss]: loss } });
    return { [MetricKey.SftValLoss]: loss };
  };
  if (step === 0 && c.valBeforeTrain) {
    const m = await validate();
    if (Object.keys(m).length > 0) await c.metrics.append(buildStepMetrics({ step: 0, epoch: 0, scalars: m }));
  }
  while (step < c.totalSteps) {
    c.signal.throwIfAborted();
    const batch = c.sampler.nextBatch(state);
    step += 1;
    const started = c.now();
    const lr = lrAtStep(c.schedule, step);
    const out = await c.policy.sftStep(microBatches(batch.rows, c.microBatchSize), lr, step, c.widths);
    const stepS = c.now() - started;
    state = batch.state;
    const last = step === c.totalSteps;
    const learned = batch.rows.reduce((n, r) => n + r.lossMask.reduce((a, b) => a + b, 0), 0);
    let record = buildStepMetrics({
      step,
      epoch: batch.epoch,
      timingS: { step: stepS },
      scalars: {
        [MetricKey.SftLoss]: out.loss,
        [MetricKey.SftLr]: lr,
        [MetricKey.SftGradNorm]: out.gradNorm,
        'train/update_skipped': out.skipped ? 1 : 0,
        'train/learned_tokens': learned,
        'perf/throughput': learned / Math.max(stepS, 1e-9),
      },
    });
    if ((c.testFreq > 0 && step % c.testFreq === 0) || last) record = { ...record, ...(await validate()) };
    await c.metrics.append(record);
    c.emit({ type: 'step', job: c.job, step, total_steps: c.totalSteps, metrics: flat(record) });
    if ((c.saveFreq > 0 && step % c.saveFreq === 0) || last) {
      version = await c.policy.export(false, c.checkpoints.workerDir(step));
      const dir = await c.checkpoints.commit({ step, sampler: state, kl_coef: null, version });
      c.emit({ type: 'checkpoint', job: c.job, step, dir });
    }
  }
  return version;
}
