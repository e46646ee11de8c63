// What the trainer's integration tests share: small GSM8K-style parquet
// splits, submitting a job over the trainer's HTTP API and following its event
// stream to a successful end, and whether this machine's Python has torch.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createParquetWriter, gsm8kFields, synthGsm8kRows } from '@rl/datasets';
import { BYTE_SPECIALS, trainBpe } from '@rl/policy';
import { expect } from 'vitest';
import { readSse } from '../../services/trainer/src/cli/sse.ts';
import { startNatsServer, startService, type NatsServer, type ServiceProcess } from './processes.ts';

/** Whether /usr/bin/python3 imports torch (the PyTorch engine's tests skip without it). */
export const HAS_TORCH = (() => {
  try {
    execFileSync('/usr/bin/python3', ['-c', 'import torch'], { stdio: 'ignore', timeout: 60_000 });
    return true;
  } catch {
    return false;
  }
})();

/** Writes `count` small synthetic GSM8K rows to `path`; returns their questions and solutions (tokenizer training text). */
async function writeGsm8kSplit(path: string, count: number, seed: number, hashRatio: number): Promise<string[]> {
  const w = await createParquetWriter(path, gsm8kFields('plain'));
  const texts: string[] = [];
  for (const row of synthGsm8kRows({ count, seed, split: 'train', hashRatio, instruction: '', problem: { maxOps: 2, maxAmount: 9, maxTotal: 20 } })) {
    await w.write(row);
    texts.push(row.prompt[0]!.content, row.extra_info.answer);
  }
  await w.close();
  return texts;
}

/** One event of a job's stream. */
export type JobEvent = { type: string; state?: string; error?: string; step?: number; metrics?: Record<string, number>; message?: string };

/** Submits a job to the trainer at `baseUrl`. */
export async function submitJob(baseUrl: string, id: string, config: unknown): Promise<void> {
  const r = await fetch(`${baseUrl}/v1/jobs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id, config }) });
  expect(r.status, await r.clone().text()).toBe(201);
}

/** Follows a job's events to its end, which must be success; `onEvent` sees each as it comes. */
export async function followJob(baseUrl: string, id: string, onEvent: (e: JobEvent) => void = () => {}): Promise<JobEvent[]> {
  const res = await fetch(`${baseUrl}/v1/jobs/${id}/metrics?stream=true`);
  const events: JobEvent[] = [];
  for await (const m of readSse(res.body!)) {
    const e = JSON.parse(m.data) as JobEvent;
    events.push(e);
    onEvent(e);
  }
  const view = await (await fetch(`${baseUrl}/v1/jobs/${id}`)).text();
  expect(events.at(-1), view).toMatchObject({ type: 'state', state: 'succeeded' });
  return events;
}

/** Submits a job and follows it to a successful end. */
export async function runJob(baseUrl: string, id: string, config: unknown): Promise<JobEvent[]> {
  await submitJob(baseUrl, id, config);
  return followJob(baseUrl, id);
}

/**
 * The short SFT on the stack's splits (sft.parquet, tokenizer.json) that the RL integration tests start from: a
 * one-layer model, `steps` steps, written to `default_local_dir: sft`. `model`, `optim`, `data` and `trainer`
 * are merged over the defaults.
 */
export function tinySftJob(
  o: {
    steps?: number;
    data?: Record<string, unknown>;
    model?: Record<string, unknown>;
    optim?: Record<string, unknown>;
    trainer?: Record<string, unknown>;
  } = {},
): Record<string, unknown> {
  return {
    kind: 'sft',
    data: {
      train_files: 'sft.parquet',
      prompt_key: 'prompt',
      response_key: 'extra_info',
      response_dict_keys: ['answer'],
      train_batch_size: 8,
      micro_batch_size_per_gpu: 8,
      max_length: 160,
      truncation: 'right',
      ...o.data,
    },
    model: { tokenizer: 'tokenizer.json', d_model: 16, n_layers: 1, n_heads: 2, d_ff: 32, ...o.model },
    optim: { lr: 3e-3, lr_warmup_steps_ratio: 0, ...o.optim },
    trainer: { total_training_steps: o.steps ?? 2, default_local_dir: 'sft', resume_mode: 'disable', ...o.trainer },
  };
}

/** The metrics of each step event. */
export const jobSteps = (events: JobEvent[]) => events.filter((e) => e.type === 'step').map((e) => e.metrics!);

/** A trainer with its reward and generation services on a fresh nats-server, over a work directory of GSM8K splits. */
export interface TrainerStack {
  /** The trainer's base directory: sft.parquet, rl.parquet, test.parquet and tokenizer.json (a BPE learned from the SFT split). */
  work: string;
  nats: NatsServer;
  trainer: ServiceProcess;
  /** Starts the generation service with `env` added to the stack's (with `deferGeneration`). */
  startGeneration(env: NodeJS.ProcessEnv): Promise<ServiceProcess>;
  /** Stops every process and removes the work directory. */
  stop(): Promise<void>;
}

/**
 * Starts the stack the trainer's integration tests run jobs on; the generation service follows `bucket`'s `actor`
 * object. With `deferGeneration` the test starts it (`startGeneration`), e.g. once the inference server it fronts
 * has a model the stack's first job trained.
 */
export async function startTrainerStack(o: {
  prefix: string;
  bucket: string;
  sftRows: number;
  testRows: number;
  vocabSize: number;
  deferGeneration?: boolean;
}): Promise<TrainerStack> {
  const work = mkdtempSync(join(tmpdir(), o.prefix));
  const texts = await writeGsm8kSplit(join(work, 'sft.parquet'), o.sftRows, 1, 0.5);
  await writeGsm8kSplit(join(work, 'rl.parquet'), 32, 2, 1);
  await writeGsm8kSplit(join(work, 'test.parquet'), o.testRows, 3, 1);
  writeFileSync(join(work, 'tokenizer.json'), JSON.stringify(trainBpe(texts, { vocabSize: o.vocabSize, specials: BYTE_SPECIALS, pretokenizer: 'gpt2' })));
  const nats = await startNatsServer();
  const services: ServiceProcess[] = [];
  const startGeneration = async (env: NodeJS.ProcessEnv) => {
    const gen = await startService('generation', { NATS_URL: nats.url, POLICY_OBJECT_STORE: o.bucket, POLICY_OBJECT_NAME: 'actor', ...env });
    services.push(gen);
    return gen;
  };
  await Promise.all([
    startService('reward-rules', { NATS_URL: nats.url, SCORE_WORKERS: '1' }).then((s) => services.push(s)),
    o.deferGeneration === true ? undefined : startGeneration({}),
  ]);
  const trainer = await startService('trainer', { NATS_URL: nats.url, TRAINER_BASE_DIR: work });
  return {
    work,
    nats,
    trainer,
    startGeneration,
    stop: async () => {
      await Promise.all([trainer, ...services].map((s) => s.stop()));
      await nats.stop();
      rmSync(work, { recursive: true, force: true });
    },
  };
}
