import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startNatsServer, startService, type NatsServer, type ServiceProcess } from './support/processes.ts';

const run = promisify(execFile);
const CLI = join(ROOT, 'shared/client/bin/rl-rewards.ts');
let nats: NatsServer;
let svc: ServiceProcess;
let dir: string;

beforeAll(async () => {
  nats = await startNatsServer();
  svc = await startService('reward-rules', { NATS_URL: nats.url });
  dir = mkdtempSync(join(tmpdir(), 'rl-cli-'));
});
afterAll(async () => {
  await svc?.stop();
  await nats?.stop();
});

const cli = (args: string[]) => run(process.execPath, [CLI, ...args], { timeout: 60_000 });
const cliFails = (args: string[]) =>
  cli(args).then(
    () => expect.unreachable('the CLI should have failed'),
    (e: { code: number; stderr: string }) => e,
  );

describe('rl-rewards CLI (real service over HTTP and NATS)', () => {
  it('scores one item from flags', async () => {
    const { stdout } = await cli(['score', '--url', svc.baseUrl, '--data-source', 'openai/gsm8k', '--solution', 'so #### 18', '--ground-truth', '18']);
    expect(JSON.parse(stdout)).toEqual({ score: 1, extra: { acc: true, pred: '18' } });
  });

  it('scores a JSONL file in batches, in order, identically over HTTP and NATS', async () => {
    const file = join(dir, 'items.jsonl');
    const items = Array.from({ length: 1000 }, (_, i) => ({
      data_source: 'openai/gsm8k',
      solution_str: `#### ${i}`,
      ground_truth: String(i % 2 === 0 ? i : -1),
    }));
    writeFileSync(file, `${items.map((i) => JSON.stringify(i)).join('\n')}\n`);
    const http = await cli(['score', '--file', file, '--url', svc.baseUrl, '--batch-size', '128']);
    const bus = await cli(['score', '--file', file, '--nats', nats.url, '--batch-size', '300', '--concurrency', '2']);
    const lines = http.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { score: number });
    expect(lines.map((l) => l.score)).toEqual(items.map((_, i) => (i % 2 === 0 ? 1 : 0)));
    expect(bus.stdout).toBe(http.stdout);
  });

  it('names the line and field of a bad item and exits non-zero', async () => {
    const file = join(dir, 'bad.jsonl');
    writeFileSync(file, '{"data_source":"openai/gsm8k","solution_str":"#### 1","ground_truth":"1"}\n{"data_source":"openai/gsm8k","ground_truth":"1"}\n');
    const err = await cliFails(['score', '--file', file, '--url', svc.baseUrl]);
    expect(err.code).toBe(1);
    expect(err.stderr).toContain('bad.jsonl:2');
    expect(err.stderr).toContain('solution_str');
  });

  it('explains missing flags and an unreachable service', async () => {
    expect((await cliFails(['score', '--data-source', 'x'])).code).toBe(2);
    const down = await cliFails(['score', '--url', 'http://127.0.0.1:1', '--data-source', 'x', '--solution', 'y', '--ground-truth', 'z']);
    expect(down.stderr).toContain('unavailable');
  });
});

describe('rl-train CLI against a trainer started with AUTH_TOKEN (real process)', () => {
  const TRAIN_CLI = join(ROOT, 'services/trainer/bin/rl-train.ts');
  const TOKEN = 'rl-train-test-token';
  let trainer: ServiceProcess;
  beforeAll(async () => {
    trainer = await startService('trainer', { NATS_URL: nats.url, TRAINER_BASE_DIR: dir, AUTH_TOKEN: TOKEN });
  }, 60_000);
  afterAll(async () => {
    await trainer?.stop();
  });
  const train = (args: string[], env: NodeJS.ProcessEnv = {}) =>
    run(process.execPath, [TRAIN_CLI, ...args], { timeout: 60_000, env: { ...process.env, ...env } }).then(
      () => expect.unreachable('this job config is invalid: the CLI should have failed'),
      (e: { code: number; stderr: string }) => e,
    );

  it('without the token: refused as unauthorized, with the setting that fixes it', async () => {
    const config = join(dir, 'job.yaml');
    writeFileSync(config, 'trainer: {total_training_steps: -1}\n');
    const err = await train([config, '--url', trainer.baseUrl, '--no-follow']);
    expect(err.code).toBe(2);
    expect(err.stderr).toContain('job refused (401)');
    expect(err.stderr).toContain('--token or RL_TRAIN_TOKEN');
  });

  it('with --token or RL_TRAIN_TOKEN: the trainer reads the job (and refuses this one for its config, not for auth)', async () => {
    const config = join(dir, 'job.yaml');
    writeFileSync(config, 'trainer: {total_training_steps: -1}\n');
    for (const [args, env] of [
      [['--token', TOKEN], {}],
      [[], { RL_TRAIN_TOKEN: TOKEN }],
    ] as const) {
      const err = await train([config, '--url', trainer.baseUrl, '--no-follow', ...args], env);
      expect(err.code).toBe(2);
      expect(err.stderr).toContain('job refused (400)');
      expect(err.stderr).toContain('total_training_steps');
    }
  });
});
