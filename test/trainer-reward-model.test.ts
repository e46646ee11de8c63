// A GRPO job mixing reward-model and rule rewards, with real parts (nats-server,
// reward-rules, reward-model serving a tiny reward model the test builds,
// generation, trainer and its policy worker). verl's older `reward_model.*`
// spelling enables the model; the rows share a data_source and differ only in
// `reward_model.style`: the "model" rows are scored at reward.model.score under
// the model's directory name, the "rule" rows by reward-rules, and each row's
// score in the job's rollout dump is what that service answers for it directly.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { createParquetWriter, fieldsOf, MESSAGE_LIST, REWARD_MODEL, scalar } from '@rl/datasets';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTinyRewardModel } from '../services/reward-model/src/models/testing/tiny-reward-model.ts';
import { readSse } from '../services/trainer/src/cli/sse.ts';
import { connectTestClient } from './support/nats-client.ts';
import { startNatsServer, startService, type NatsServer, type ServiceProcess } from './support/processes.ts';

const BUCKET = `rl-rm-mix-${process.pid}`;
const MODEL_NAME = 'tiny-rm';
const ROWS = [
  { question: 'What is 2+3?', answer: '5', style: 'rule' },
  { question: 'What is 3+4?', answer: '7', style: 'model' },
] as const;
const messagesOf = (question: string) => [{ role: 'user', content: question }];

let nats: NatsServer;
let services: ServiceProcess[] = [];
let rules: ServiceProcess;
let rm: ServiceProcess;
let trainer: ServiceProcess;
let spy: NatsConnection;
let work: string;
type Item = { data_source: string; solution_str: string; ground_truth: unknown; extra_info?: Record<string, unknown>; params?: Record<string, unknown> };
const sent: Record<string, Item[]> = { 'reward.rules.score': [], 'reward.model.score': [] };

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'rl-rm-mix-'));
  await writeTinyRewardModel(join(work, 'models', MODEL_NAME), { head: 'token', maxSeqLen: 256 });
  const w = await createParquetWriter(
    join(work, 'train.parquet'),
    fieldsOf({ data_source: scalar('string'), prompt: MESSAGE_LIST, reward_model: REWARD_MODEL }),
  );
  for (const r of ROWS)
    await w.write({ data_source: 'openai/gsm8k', prompt: messagesOf(r.question), reward_model: { ground_truth: r.answer, style: r.style } });
  await w.close();
  nats = await startNatsServer();
  [rules, rm, ...services] = await Promise.all([
    startService('reward-rules', { NATS_URL: nats.url }),
    startService('reward-model', { NATS_URL: nats.url, REWARD_MODELS: `${MODEL_NAME}=${join(work, 'models', MODEL_NAME)}` }),
    startService('generation', { NATS_URL: nats.url, POLICY_OBJECT_STORE: BUCKET, POLICY_OBJECT_NAME: 'actor' }),
  ]);
  trainer = await startService('trainer', { NATS_URL: nats.url, TRAINER_BASE_DIR: work });
  // Plain subscriptions get a copy of every request the services' queue groups serve.
  spy = await connectTestClient(nats.url);
  for (const subject of Object.keys(sent)) {
    spy.subscribe(subject, {
      callback: (err, msg) => {
        if (err === null) sent[subject]!.push(...(msg.json() as { items: Item[] }).items);
      },
    });
  }
  await spy.flush();
}, 120_000);

afterAll(async () => {
  await spy?.close();
  await Promise.all([trainer, rules, rm, ...services].map((s) => s?.stop()));
  await nats?.stop();
  rmSync(work, { recursive: true, force: true });
});

type Event = { type: string; state?: string; metrics?: Record<string, number> };
type Dumped = { output: string; gts: string; score: number; model?: string };

async function scoreDirectly(svc: ServiceProcess, item: Item): Promise<number> {
  const res = await fetch(`${svc.baseUrl}/v1/score`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ items: [item] }),
    signal: AbortSignal.timeout(60_000),
  });
  const body = (await res.json()) as { results: Array<{ score?: number; error?: unknown }> };
  expect(body.results[0], JSON.stringify(body)).toHaveProperty('score');
  return body.results[0]!.score!;
}

describe('a GRPO job mixing reward_model.style "model" and "rule" rows', () => {
  it('scores the model rows at the reward-model service and the rule rows at reward-rules, each as the service answers', async () => {
    const config = {
      data: { train_files: 'train.parquet', train_batch_size: 2, max_prompt_length: 64, max_response_length: 8 },
      actor_rollout_ref: { model: { tokenizer: 'byte', d_model: 16, n_layers: 1, n_heads: 2, d_ff: 32 }, rollout: { n: 2 }, actor: { ppo_mini_batch_size: 2 } },
      algorithm: { adv_estimator: 'grpo' },
      trainer: { total_training_steps: 1, test_freq: -1, save_freq: -1, default_local_dir: 'ckpt', resume_mode: 'disable', rollout_data_dir: 'dump' },
      rollout: { weights_bucket: BUCKET, weights_name: 'actor', timeout_ms: 60_000 },
      // verl's older spelling; the service knows the model by its directory's name.
      reward_model: { enable: true, model: { path: `/anywhere/models/${MODEL_NAME}/` } },
    };
    const r = await fetch(`${trainer.baseUrl}/v1/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'mix', config }),
    });
    expect(r.status, await r.clone().text()).toBe(201);
    const events: Event[] = [];
    for await (const m of readSse((await fetch(`${trainer.baseUrl}/v1/jobs/mix/metrics?stream=true`)).body!)) events.push(JSON.parse(m.data) as Event);
    expect(events.at(-1), JSON.stringify(events.at(-1))).toMatchObject({ type: 'state', state: 'succeeded' });
    const step = events.find((e) => e.type === 'step')!.metrics!;
    expect(step['reward/error_count']).toBe(0);

    // Each service got exactly its rows: the model's with the conversation and its name.
    expect(sent['reward.rules.score']!.map((i) => i.ground_truth)).toEqual(['5', '5']);
    expect(sent['reward.model.score']!.map((i) => i.ground_truth)).toEqual(['7', '7']);
    for (const i of sent['reward.model.score']!) {
      expect(i.params).toEqual({ model: MODEL_NAME });
      expect(i.extra_info?.['messages']).toEqual(messagesOf('What is 3+4?'));
    }

    const dumpDir = join(work, 'dump');
    const dumped = readdirSync(dumpDir).flatMap((f) =>
      readFileSync(join(dumpDir, f), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Dumped),
    );
    expect(dumped).toHaveLength(4);
    for (const d of dumped) {
      const row = ROWS.find((x) => x.answer === d.gts)!;
      const item: Item = { data_source: 'openai/gsm8k', solution_str: d.output, ground_truth: row.answer };
      if (row.style === 'model') {
        expect(d.model).toBe(MODEL_NAME);
        const direct = await scoreDirectly(rm, { ...item, extra_info: { messages: messagesOf(row.question) }, params: { model: MODEL_NAME } });
        expect(d.score).toBeCloseTo(direct, 6);
      } else {
        expect(d.model).toBeUndefined();
        expect(d.score).toBe(await scoreDirectly(rules, item));
      }
    }
    // A random tiny reward model's logit is not a rule's 0 or 1.
    expect(dumped.some((d) => d.model !== undefined && d.score !== 0 && d.score !== 1)).toBe(true);
  }, 180_000);
});
