// The trainer end to end with real parts: nats-server (JetStream), two
// reward-rules instances, the generation service watching the object store,
// the trainer service and its policy worker process. A tiny model trains for a
// few steps on verl's digit-completion data; then a trainer killed after a
// checkpoint resumes at the same data position; then a job survives losing
// one of the two reward services mid-run.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadModelDir, loadWeights } from '@rl/policy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSse } from '../services/trainer/src/cli/sse.ts';
import { validateRlJobConfig } from '../services/trainer/src/config/index.ts';
import { createBatchSampler, loadDataset, samplerOptions, trainDatasetOptions } from '../services/trainer/src/data/index.ts';
import { ROOT, startNatsServer, startService, type NatsServer, type ServiceProcess } from './support/processes.ts';

const TRAIN = join(ROOT, 'test/fixtures/verl/verl_arithmetic_sequence_train.parquet');
const VAL = join(ROOT, 'test/fixtures/verl/verl_arithmetic_sequence_test.parquet');
const BUCKET = `rl-test-${process.pid}`;

let nats: NatsServer;
let rules: ServiceProcess[] = [];
let generation: ServiceProcess;
let trainer: ServiceProcess;
let work: string;

const startTrainer = () => startService('trainer', { NATS_URL: nats.url, TRAINER_BASE_DIR: work });

function jobConfig(dir: string, steps: number) {
  return {
    data: {
      train_files: TRAIN,
      val_files: VAL,
      default_data_source: 'arithmetic_sequence',
      train_batch_size: 4,
      val_batch_size: 8,
      val_max_samples: 8,
      max_prompt_length: 16,
      max_response_length: 8,
      seed: 3,
    },
    actor_rollout_ref: {
      model: { tokenizer: 'char', d_model: 16, n_layers: 1, n_heads: 2, d_ff: 32, seed: 1 },
      rollout: { n: 4 },
      actor: { optim: { lr: 0.01, weight_decay: 0 }, ppo_mini_batch_size: 2 },
    },
    algorithm: { adv_estimator: 'grpo' },
    trainer: { total_training_steps: steps, save_freq: 1, test_freq: 2, val_before_train: false, default_local_dir: dir, resume_mode: 'auto' },
    reward: { timeout_ms: 3_000, retries: 4, backoff_ms: 50 },
    rollout: { weights_bucket: BUCKET, weights_name: 'actor', timeout_ms: 60_000 },
  };
}

async function submit(id: string, config: unknown): Promise<void> {
  const r = await fetch(`${trainer.baseUrl}/v1/jobs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id, config }),
  });
  expect(r.status, await r.clone().text()).toBe(201);
}

type Event = { type: string; state?: string; error?: string; step?: number; metrics?: Record<string, number>; dir?: string };

/** Follows a job's event stream until its final state (or until `stopAt` returns true). */
async function follow(id: string, stopAt: (e: Event) => boolean = () => false): Promise<Event[]> {
  const res = await fetch(`${trainer.baseUrl}/v1/jobs/${id}/metrics?stream=true`);
  const events: Event[] = [];
  for await (const m of readSse(res.body!)) {
    const e = JSON.parse(m.data) as Event;
    events.push(e);
    if (stopAt(e)) break;
  }
  return events;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'rl-trainer-'));
  nats = await startNatsServer();
  rules = await Promise.all([0, 1].map(() => startService('reward-rules', { NATS_URL: nats.url, SCORE_WORKERS: '1' })));
  generation = await startService('generation', { NATS_URL: nats.url, POLICY_OBJECT_STORE: BUCKET, POLICY_OBJECT_NAME: 'actor' });
  trainer = await startTrainer();
}, 120_000);

afterAll(async () => {
  await Promise.all([trainer, generation, ...rules].map((s) => s?.stop()));
  await nats?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('trainer end to end', () => {
  it('trains with remote rollouts and rewards: finite loss, changing weights, checkpoints, metrics and plots', async () => {
    const dir = join(work, 'e2e');
    await submit('e2e', jobConfig(dir, 3));
    const events = await follow('e2e');
    const final = events.at(-1)!;
    expect(final, JSON.stringify(final)).toMatchObject({ type: 'state', state: 'succeeded' });
    const steps = events.filter((e) => e.type === 'step').map((e) => e.metrics!);
    expect(steps.map((m) => m.step)).toEqual([1, 2, 3]);
    for (const m of steps) {
      expect(m['reward/arithmetic_sequence/count']).toBe(16); // 4 prompts x n=4, all scored remotely
      expect(m['reward/error_count']).toBe(0);
      expect(Number.isFinite(m['actor/pg_loss'])).toBe(true);
      expect(m['actor/grad_norm']).toBeGreaterThanOrEqual(0);
    }
    // Groups whose responses all score the same have zero advantage; the seeded run has some that do not.
    expect(Math.max(...steps.map((m) => m['actor/grad_norm']!))).toBeGreaterThan(0);
    expect(steps.at(-1)!['val-core/arithmetic_sequence/acc/mean@1']).toBeGreaterThanOrEqual(0);
    expect(events.filter((e) => e.type === 'checkpoint').map((e) => e.step)).toEqual([1, 2, 3]);
    expect(readFileSync(join(dir, 'latest_checkpointed_iteration.txt'), 'utf8')).toBe('3');
    expect(readdirSync(join(dir, 'global_step_3')).sort()).toEqual(['actor', 'trainer_state.json']);
    expect(readdirSync(join(dir, 'global_step_3', 'actor')).sort()).toEqual(['huggingface', 'optimizer.bin', 'ref.safetensors']);
    const actor = await loadModelDir(join(dir, 'global_step_3', 'actor', 'huggingface'));
    const ref = await loadWeights(join(dir, 'global_step_3', 'actor', 'ref.safetensors'));
    expect(Object.keys(actor.params).sort()).toEqual(Object.keys(ref.params).sort());
    // The weights moved away from the initial ones.
    expect(Object.entries(actor.params).some(([name, t]) => !t.data.every((v, i) => v === ref.params[name]!.data[i]))).toBe(true);
    expect(existsSync(join(dir, 'hf_model', 'model.safetensors'))).toBe(true);
    expect(readFileSync(join(dir, 'metrics.jsonl'), 'utf8').trim().split('\n')).toHaveLength(3);
    expect(existsSync(join(dir, 'plots', 'index.html'))).toBe(true);
  }, 300_000);

  it('resumes a killed trainer from its last checkpoint at the same data position', async () => {
    const dir = join(work, 'resume');
    const config = jobConfig(dir, 4);
    await submit('resume', config);
    await follow('resume', (e) => e.type === 'checkpoint' && e.step === 2);
    await trainer.stop(); // SIGKILL of the trainer's process group: the policy worker goes with it
    trainer = await startTrainer();
    await submit('resume', config);
    const events = await follow('resume');
    expect(events.at(-1)).toMatchObject({ type: 'state', state: 'succeeded' });
    const steps = events.filter((e) => e.type === 'step').map((e) => e.metrics!);
    expect(steps.map((m) => m.step)).toEqual([3, 4]);
    // The batch an uninterrupted run draws at step 3: the sampler's third batch.
    const data = validateRlJobConfig(config).data;
    const sampler = createBatchSampler(await loadDataset(trainDatasetOptions(data)), samplerOptions(data));
    let state = sampler.initialState;
    const firstRows: number[] = [];
    for (let i = 0; i < 4; i++) {
      const b = sampler.nextBatch(state);
      firstRows.push(b.rows[0]!.row_id);
      state = b.state;
    }
    expect(steps.map((m) => m['data/first_row_id'])).toEqual(firstRows.slice(2));
  }, 300_000);

  it('loses no sample when one of two reward-rules instances dies mid-job', async () => {
    const dir = join(work, 'fault');
    await submit('fault', jobConfig(dir, 4));
    await follow('fault', (e) => e.type === 'step' && e.step === 1);
    await rules[0]!.stop();
    const events = await follow('fault');
    expect(events.at(-1)).toMatchObject({ type: 'state', state: 'succeeded' });
    const steps = events.filter((e) => e.type === 'step').map((e) => e.metrics!);
    expect(steps.map((m) => m.step)).toEqual([1, 2, 3, 4]);
    for (const m of steps) {
      expect(m['reward/arithmetic_sequence/count']).toBe(16);
      expect(m['reward/error_count']).toBe(0);
    }
  }, 300_000);
});
