// The two-stage chain `make run` trains, shortened, with real parts
// (nats-server, reward-rules, generation, trainer and its policy worker): an
// SFT job on synthetic GSM8K-style problems with a BPE tokenizer learned from
// them, then a GRPO job that starts from the SFT checkpoint and is rewarded by
// the remote reward-rules service; and an RL job with an otherwise default
// config, i.e. verl's default estimator, GAE with a critic.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createParquetWriter, gsm8kFields, synthGsm8kRows } from '@rl/datasets';
import { BYTE_SPECIALS, loadWeights, trainBpe } from '@rl/policy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSse } from '../services/trainer/src/cli/sse.ts';
import { startNatsServer, startService, type NatsServer, type ServiceProcess } from './support/processes.ts';

const BUCKET = `rl-sftrl-${process.pid}`;
let nats: NatsServer;
let services: ServiceProcess[] = [];
let trainer: ServiceProcess;
let work: string;

async function writeSplit(path: string, count: number, seed: number, hashRatio: number): Promise<string[]> {
  const w = await createParquetWriter(path, gsm8kFields('plain'));
  const texts: string[] = [];
  for (const row of synthGsm8kRows({ count, seed, split: 'train', hashRatio, instruction: '', problem: { maxOps: 2, maxAmount: 9, maxTotal: 20 } })) {
    await w.write(row);
    texts.push(row.prompt[0]!.content, row.extra_info.answer);
  }
  await w.close();
  return texts;
}

type Event = { type: string; state?: string; error?: string; step?: number; metrics?: Record<string, number>; message?: string };

async function run(id: string, config: unknown): Promise<Event[]> {
  const r = await fetch(`${trainer.baseUrl}/v1/jobs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id, config }),
  });
  expect(r.status, await r.clone().text()).toBe(201);
  const res = await fetch(`${trainer.baseUrl}/v1/jobs/${id}/metrics?stream=true`);
  const events: Event[] = [];
  for await (const m of readSse(res.body!)) events.push(JSON.parse(m.data) as Event);
  const view = await (await fetch(`${trainer.baseUrl}/v1/jobs/${id}`)).text();
  expect(events.at(-1), view).toMatchObject({ type: 'state', state: 'succeeded' });
  return events;
}

const steps = (events: Event[]) => events.filter((e) => e.type === 'step').map((e) => e.metrics!);

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'rl-sftrl-'));
  const texts = await writeSplit(join(work, 'sft.parquet'), 64, 1, 0.5);
  await writeSplit(join(work, 'rl.parquet'), 32, 2, 1);
  await writeSplit(join(work, 'test.parquet'), 8, 3, 1);
  writeFileSync(join(work, 'tokenizer.json'), JSON.stringify(trainBpe(texts, { vocabSize: 320, specials: BYTE_SPECIALS, pretokenizer: 'gpt2' })));
  nats = await startNatsServer();
  services = await Promise.all([
    startService('reward-rules', { NATS_URL: nats.url, SCORE_WORKERS: '1' }),
    startService('generation', { NATS_URL: nats.url, POLICY_OBJECT_STORE: BUCKET, POLICY_OBJECT_NAME: 'actor' }),
  ]);
  trainer = await startService('trainer', { NATS_URL: nats.url, TRAINER_BASE_DIR: work });
}, 120_000);

afterAll(async () => {
  await Promise.all([trainer, ...services].map((s) => s?.stop()));
  await nats?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('SFT warm start, then RL from its checkpoint', () => {
  it('SFT trains and checkpoints; GRPO loads that checkpoint (its reference policy) and is rewarded remotely; both write metrics and plots', async () => {
    const sft = await run('sft', {
      kind: 'sft',
      data: {
        train_files: 'sft.parquet',
        val_files: 'test.parquet',
        prompt_key: 'prompt',
        response_key: 'extra_info',
        response_dict_keys: ['answer'],
        train_batch_size: 8,
        micro_batch_size_per_gpu: 4,
        max_length: 160,
        truncation: 'right',
      },
      model: { tokenizer: 'tokenizer.json', d_model: 16, n_layers: 1, n_heads: 2, d_ff: 32 },
      optim: { lr: 3e-3, lr_warmup_steps_ratio: 0.2 },
      trainer: { total_training_steps: 4, test_freq: 2, default_local_dir: 'sft', resume_mode: 'disable' },
    });
    const sm = steps(sft);
    expect(sm.map((m) => m.step)).toEqual([1, 2, 3, 4]);
    expect(sm[0]!['train/lr']).toBe(0); // warmup: the first step runs at lr 0, as torch's LambdaLR does
    for (const m of sm) expect(Number.isFinite(m['train/loss'])).toBe(true);
    expect(sm.filter((m) => m['val/loss'] !== undefined).map((m) => m.step)).toEqual([2, 4]);
    expect(readFileSync(join(work, 'sft', 'latest_checkpointed_iteration.txt'), 'utf8')).toBe('4');
    expect(existsSync(join(work, 'sft', 'plots', 'sft-loss.svg'))).toBe(true);

    const rl = await run('grpo', {
      data: { train_files: 'rl.parquet', val_files: 'test.parquet', train_batch_size: 4, max_prompt_length: 128, max_response_length: 16 },
      actor_rollout_ref: { model: { path: 'sft' }, rollout: { n: 4 }, actor: { optim: { lr: 1e-3 }, ppo_mini_batch_size: 2 } },
      algorithm: { adv_estimator: 'grpo' },
      reward: { params: { 'openai/gsm8k': { method: 'strict' } } },
      trainer: { total_training_steps: 2, test_freq: 2, save_freq: 2, default_local_dir: 'grpo', resume_mode: 'disable' },
      rollout: { weights_bucket: BUCKET, weights_name: 'actor', timeout_ms: 60_000 },
    });
    const rm = steps(rl);
    expect(rm.map((m) => m.step)).toEqual([1, 2]);
    for (const m of rm) {
      expect(m['reward/openai/gsm8k/count']).toBe(16); // 4 prompts x n=4, scored by reward-rules
      expect(m['reward/error_count']).toBe(0);
    }
    expect(rm.at(-1)!['val-core/openai/gsm8k/acc/mean@1']).toBeGreaterThanOrEqual(0);
    // The RL job's reference policy is the SFT checkpoint's actor, tensor for tensor.
    const sftActor = await loadWeights(join(work, 'sft', 'global_step_4', 'policy', 'actor.safetensors'));
    const ref = await loadWeights(join(work, 'grpo', 'global_step_2', 'policy', 'ref.safetensors'));
    expect(Object.keys(ref.params).sort()).toEqual(Object.keys(sftActor.params).sort());
    for (const [name, t] of Object.entries(sftActor.params)) expect(ref.params[name]!.data, name).toEqual(t.data);
    expect(existsSync(join(work, 'grpo', 'plots', 'val-accuracy.svg'))).toBe(true);
  }, 300_000);

  it('an RL job with an otherwise default config runs PPO with a critic (verl default adv_estimator gae)', async () => {
    const events = await run('gae', {
      data: { train_files: 'rl.parquet', train_batch_size: 4, max_prompt_length: 128, max_response_length: 16 },
      actor_rollout_ref: { model: { tokenizer: 'tokenizer.json', d_model: 16, n_layers: 1, n_heads: 2, d_ff: 32 } },
      trainer: { total_training_steps: 2, save_freq: 2, default_local_dir: 'gae', resume_mode: 'disable' },
      rollout: { weights_bucket: BUCKET, weights_name: 'actor', timeout_ms: 60_000 },
    });
    for (const m of steps(events)) {
      expect(m['critic/vf_loss'], JSON.stringify(m)).toBeGreaterThanOrEqual(0);
      expect(Number.isFinite(m['critic/values/mean']), JSON.stringify(m)).toBe(true);
      expect(Number.isFinite(m['critic/vf_explained_var']), JSON.stringify(m)).toBe(true);
      expect(m['timing_s/update_critic']).toBeGreaterThan(0);
      expect(m['reward/error_count']).toBe(0);
    }
    expect(existsSync(join(work, 'gae', 'global_step_2', 'policy', 'critic.safetensors'))).toBe(true);
  }, 300_000);
});
