// A job names server paths; the trainer keeps them inside its roots. Attacks
// over real HTTP against a real trainer (started as the tests run it: as root
// in CI), its policy worker, nats-server and reward-rules: reading
// /etc/passwd, climbing out with "..", writing checkpoints to /tmp, and
// symbolic links out of a root are refused naming the key and never showing
// a file's contents; a job that stays inside runs, and when the trainer was
// started as root its files belong to the unprivileged user.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { ErrorCode, requestJson } from '@rl/service-kit';
import { expectAppErrorAsync } from '@rl/service-kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSse } from '../services/trainer/src/cli/sse.ts';
import { ExportReply, policySubject } from '../services/trainer/src/policy/protocol.ts';
import { connectTestClient } from './support/nats-client.ts';
import { ROOT, startNatsServer, startService, type NatsServer, type ServiceProcess } from './support/processes.ts';

const TRAIN = join(ROOT, 'test/fixtures/verl/verl_arithmetic_sequence_train.parquet');
const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;

let nats: NatsServer;
let rules: ServiceProcess;
let trainer: ServiceProcess;
let work: string;
let outside: string;
let nc: NatsConnection;

function job(over: { data?: object; model?: object; trainer?: object } = {}) {
  return {
    data: { train_files: TRAIN, default_data_source: 'arithmetic_sequence', train_batch_size: 4, max_prompt_length: 16, max_response_length: 8, ...over.data },
    actor_rollout_ref: {
      model: { tokenizer: 'char', d_model: 16, n_layers: 1, n_heads: 2, d_ff: 32, seed: 1, ...over.model },
      rollout: { n: 2 },
      actor: { optim: { lr: 0.01 }, ppo_mini_batch_size: 2 },
    },
    algorithm: { adv_estimator: 'grpo' },
    trainer: { total_training_steps: 1, save_freq: 1, val_before_train: false, default_local_dir: 'ok', resume_mode: 'disable', ...over.trainer },
    reward: { timeout_ms: 10_000 },
    rollout: { mode: 'embedded' },
  };
}

const post = (body: object) =>
  fetch(`${trainer.baseUrl}/v1/jobs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

type Problem = { path: string; message: string };
async function refused(body: object): Promise<Problem[]> {
  const r = await post(body);
  const text = await r.text();
  expect(r.status, text).toBe(400);
  return (JSON.parse(text) as { error: { details: { problems: Problem[] } } }).error.details.problems;
}

/** Submits a job, follows its events to the end, and returns its final view. */
async function run(id: string, config: object): Promise<{ state: string; error: string | null }> {
  const r = await post({ id, config });
  expect(r.status, await r.clone().text()).toBe(201);
  const res = await fetch(`${trainer.baseUrl}/v1/jobs/${id}/metrics?stream=true`);
  for await (const _ of readSse(res.body!));
  return (await (await fetch(`${trainer.baseUrl}/v1/jobs/${id}`)).json()) as { state: string; error: string | null };
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'rl-trainer-paths-'));
  outside = mkdtempSync(join(tmpdir(), 'rl-trainer-paths-outside-'));
  chmodSync(outside, 0o755); // reachable, so that the link check (not the file modes) refuses it
  writeFileSync(join(outside, 'secret.json'), '{"secret": "SECRET-CONTENT"}');
  symlinkSync('/etc/passwd', join(work, 'passwd.parquet'));
  symlinkSync(outside, join(work, 'escape'));
  mkdirSync(join(work, 'mine'));
  nats = await startNatsServer();
  rules = await startService('reward-rules', { NATS_URL: nats.url, SCORE_WORKERS: '1' });
  trainer = await startService('trainer', { NATS_URL: nats.url, TRAINER_BASE_DIR: work });
  nc = await connectTestClient(nats.url);
}, 120_000);

afterAll(async () => {
  await nc?.close();
  await Promise.all([trainer, rules].map((s) => s?.stop()));
  await nats?.stop();
  rmSync(work, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe('trainer job paths', () => {
  it('refuses paths outside the roots at submission, naming each key', async () => {
    const attacks: Array<[object, string, RegExp]> = [
      [{ config: job({ data: { train_files: '/etc/passwd' } }) }, 'data.train_files', /\/etc\/passwd is outside the data roots/],
      [{ config: job(), overrides: ['data.train_files=/etc/passwd'] }, 'data.train_files', /outside the data roots/],
      [{ config: job({ data: { val_files: '../../../../etc/passwd' } }) }, 'data.val_files', /^"\.\.": paths may not climb out/],
      [{ config: job({ trainer: { default_local_dir: '/tmp/evil' } }) }, 'trainer.default_local_dir', /\/tmp\/evil is outside the output root/],
      [{ config: job({ trainer: { validation_data_dir: '/etc/cron.d' } }) }, 'trainer.validation_data_dir', /outside the output root/],
      [{ config: job({ trainer: { rollout_data_dir: 'ok/../../x' } }) }, 'trainer.rollout_data_dir', /^"\.\."/],
      [
        { config: job({ model: { path: '/etc', tokenizer: null, d_model: null, n_layers: null, n_heads: null, d_ff: null } }) },
        'actor_rollout_ref.model.path',
        /outside the model roots/,
      ],
      [{ config: job({ model: { tokenizer: join(outside, 'secret.json') } }) }, 'actor_rollout_ref.model.tokenizer', /outside the model roots/],
    ];
    for (const [body, key, message] of attacks) {
      const problems = await refused(body);
      expect(problems.map((p) => p.path)).toEqual([key]);
      expect(problems[0]!.message).toMatch(message);
    }
    expect(statSync('/tmp/evil', { throwIfNoEntry: false })).toBeUndefined();
    expect((await fetch(`${trainer.baseUrl}/healthz`)).status).toBe(200);
  });

  it('refuses a symbolic link out of a root when the job opens it, without showing the file', async () => {
    const data = await run('link-data', job({ data: { train_files: 'passwd.parquet' } }));
    expect(data.state).toBe('failed');
    expect(data.error).toMatch(/^invalid job config:\n {2}data\.train_files: .*passwd\.parquet leads out of its roots through a symbolic link/);
    expect(data.error).not.toMatch(/root:/);
    const out = await run('link-out', job({ trainer: { default_local_dir: 'escape/job' } }));
    expect(out.state).toBe('failed');
    expect(out.error).toMatch(/trainer\.default_local_dir: .*leads out of the output root through a symbolic link/);
    await fetch(`${trainer.baseUrl}/v1/jobs/link-out/plots`, { method: 'POST' }); // plots go only where an opened job writes
    expect(readdirSync(outside)).toEqual(['secret.json']);
  });

  it('runs a job that stays inside; as root, the job (trainer and worker) works as the unprivileged user', async () => {
    const final = await run('inside', job({ trainer: { default_local_dir: 'ok/job' } }));
    expect(final, JSON.stringify(final)).toMatchObject({ state: 'succeeded' });
    const dir = join(work, 'ok', 'job');
    expect(readFileSync(join(dir, 'latest_checkpointed_iteration.txt'), 'utf8')).toBe('1');
    if (!asRoot) return;
    // The trainer switched its effective ids at start: real, effective, saved, filesystem.
    const ids = /^Uid:\s+(.*)$/m
      .exec(readFileSync(`/proc/${trainer.proc.pid}/status`, 'utf8'))![1]!
      .split(/\s+/)
      .map(Number);
    expect(ids).toEqual([0, NOBODY, 0, NOBODY]);
    // metrics.jsonl and trainer_state.json are the trainer's, the checkpoint's and the final models the worker's.
    for (const f of [
      '',
      'metrics.jsonl',
      'global_step_1',
      'global_step_1/trainer_state.json',
      'global_step_1/actor/huggingface/model.safetensors',
      'global_step_1/actor/optimizer.bin',
      'hf_model/config.json',
      'plots/index.html',
    ]) {
      expect(statSync(join(dir, f)).uid, f).toBe(NOBODY);
    }
    expect(statSync(join(work, 'ok')).uid).toBe(NOBODY); // created for the job
    expect(statSync(work).uid).toBe(0); // the root itself is not handed over
  }, 300_000);

  it('the policy worker writes checkpoints only inside its job directory, whoever asks on the bus', async () => {
    const r = await post({ id: 'bus', config: job({ trainer: { default_local_dir: 'bus', total_training_steps: 1000, save_freq: -1 } }) });
    expect(r.status).toBe(201);
    const res = await fetch(`${trainer.baseUrl}/v1/jobs/bus/metrics?stream=true`);
    for await (const m of readSse(res.body!)) if ((JSON.parse(m.data) as { type: string }).type === 'step') break; // the worker is up
    const err = await expectAppErrorAsync(
      requestJson(nc, policySubject('bus', 'export'), { publish: false, checkpoint_dir: join(outside, 'ckpt') }, { timeoutMs: 60_000, response: ExportReply }),
      ErrorCode.BadRequest,
    );
    expect(err.message).toMatch(/^checkpoint_dir: must be inside the job directory/);
    await fetch(`${trainer.baseUrl}/v1/jobs/bus`, { method: 'DELETE' });
    expect(readdirSync(outside)).toEqual(['secret.json']);
  }, 300_000);

  it.runIf(asRoot)('refuses an existing directory of another owner that is not a job directory', async () => {
    const final = await run('not-mine', job({ trainer: { default_local_dir: 'mine' } }));
    expect(final.state).toBe('failed');
    expect(final.error).toMatch(/trainer\.default_local_dir: .*mine exists and belongs to uid 0, not the run-as user nobody/);
  });
});
