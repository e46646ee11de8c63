// Story RL end to end with real parts (nats-server, reward-story, generation,
// trainer and its policy worker): rows converted by the story converter, a
// GRPO job whose reward is reward-story. The trainer computes the story
// signals in its old log-prob pass and reward-story receives them, one entry
// per reply token the model produced, so info_gain and entropy act; a row
// without the prompt without r stops the job with the documented error.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { createParquetWriter, parseStoryRecord, STORY_FIELDS, StoryContextPart, storySamples } from '@rl/datasets';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSse } from '../services/trainer/src/cli/sse.ts';
import { connectTestClient } from './support/nats-client.ts';
import { startNatsServer, startService, type NatsServer, type ServiceProcess } from './support/processes.ts';

const BUCKET = `rl-story-${process.pid}`;
const MAX_RESPONSE = 12;
const CONVERSATIONS = [
  {
    id: 'inn',
    system: 'An inn at the edge of a snowy pass.',
    conversations: [
      { from: 'human', value: 'I knock.' },
      { from: 'gpt', value: 'The innkeeper opens.' },
      { from: 'human', value: 'I ask for soup.' },
      { from: 'gpt', value: 'She brings hot soup.' },
    ],
  },
  {
    id: 'tea',
    system: '江南小镇的茶馆。',
    conversations: [
      { from: 'human', value: '我坐下。' },
      { from: 'gpt', value: '店家端来热茶。' },
      { from: 'human', value: '我问路。' },
      { from: 'gpt', value: '他指向石桥。' },
    ],
  },
];

let nats: NatsServer;
let services: ServiceProcess[] = [];
let trainer: ServiceProcess;
let spy: NatsConnection;
let work: string;
const storyRequests: Array<{ items: Array<{ solution_str: string; signals?: Record<string, number[]> }> }> = [];

/** Writes the conversations as the story converter does; `dropWithout` leaves the prompt without r out. */
async function writeStory(path: string, dropWithout: boolean): Promise<void> {
  const fields = dropWithout ? STORY_FIELDS.filter((f) => f.name !== 'prompt_without_context') : STORY_FIELDS;
  const w = await createParquetWriter(path, fields);
  let index = 0;
  for (const c of CONVERSATIONS) {
    for (const s of storySamples(parseStoryRecord(c, c.id), c.id, index, {
      dataSource: 'story',
      instruction: '',
      outputFormat: '',
      context: StoryContextPart.Story,
    })) {
      const { prompt_without_context: _, ...rest } = s;
      await w.write(dropWithout ? rest : s);
      index++;
    }
  }
  await w.close();
}

type Event = { type: string; state?: string; error?: string; metrics?: Record<string, number> };

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
  return events;
}

const job = (trainFile: string, dir: string) => ({
  data: { train_files: trainFile, train_batch_size: 2, max_prompt_length: 128, max_response_length: MAX_RESPONSE },
  actor_rollout_ref: { model: { tokenizer: 'byte', d_model: 16, n_layers: 1, n_heads: 2, d_ff: 32 }, rollout: { n: 2 }, actor: { ppo_mini_batch_size: 2 } },
  algorithm: { adv_estimator: 'grpo' },
  trainer: { total_training_steps: 2, test_freq: -1, save_freq: -1, default_local_dir: dir, resume_mode: 'disable' },
  rollout: { weights_bucket: BUCKET, weights_name: 'actor', timeout_ms: 60_000 },
});

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'rl-story-'));
  await writeStory(join(work, 'story.parquet'), false);
  await writeStory(join(work, 'no-without.parquet'), true);
  nats = await startNatsServer();
  services = await Promise.all([
    startService('reward-story', { NATS_URL: nats.url }),
    startService('generation', { NATS_URL: nats.url, POLICY_OBJECT_STORE: BUCKET, POLICY_OBJECT_NAME: 'actor' }),
  ]);
  trainer = await startService('trainer', { NATS_URL: nats.url, TRAINER_BASE_DIR: work });
  // A plain subscription gets a copy of every request the reward-story queue group serves.
  spy = await connectTestClient(nats.url);
  spy.subscribe('reward.story.score', {
    callback: (err, msg) => {
      if (err === null) storyRequests.push(msg.json());
    },
  });
  await spy.flush();
}, 120_000);

afterAll(async () => {
  await spy?.close();
  await Promise.all([trainer, ...services].map((s) => s?.stop()));
  await nats?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('story RL with signals from the trainer', () => {
  it('sends reward-story each reply’s signals, one value per produced token, and info_gain and entropy act', async () => {
    const events = await run('story', job('story.parquet', 'story'));
    expect(events.at(-1), JSON.stringify(events.at(-1))).toMatchObject({ type: 'state', state: 'succeeded' });
    const items = storyRequests.flatMap((r) => r.items);
    expect(items).toHaveLength(2 * 2 * 2); // 2 steps x 2 prompts x n=2
    const utf8 = new TextEncoder();
    for (const item of items) {
      const s = item.signals!;
      const n = s.logprobs_with_context!.length;
      expect(s.logprobs_without_context).toHaveLength(n);
      expect(s.entropies).toHaveLength(n);
      expect(n).toBeGreaterThanOrEqual(1);
      expect(n).toBeLessThanOrEqual(MAX_RESPONSE);
      // Byte tokens: the reply's bytes, plus the end-of-sequence token when it stopped on one.
      if (!item.solution_str.includes('\uFFFD')) expect([0, 1]).toContain(n - utf8.encode(item.solution_str).length);
      for (const v of [...s.logprobs_with_context!, ...s.logprobs_without_context!]) expect(v).toBeLessThanOrEqual(0);
      for (const v of s.entropies!) expect(v).toBeGreaterThanOrEqual(0);
    }
    // The same reply scored without the story setting gets other log-probs.
    expect(items.some((i) => i.signals!.logprobs_with_context!.some((v, t) => Math.abs(v - i.signals!.logprobs_without_context![t]!) > 1e-6))).toBe(true);
    const metrics = events.filter((e) => e.type === 'step').map((e) => e.metrics!);
    expect(metrics).toHaveLength(2);
    for (const m of metrics) {
      expect(m['reward/error_count']).toBe(0);
      expect(m['reward/story/info_gain/mean'], JSON.stringify(m)).toBeGreaterThan(0);
      expect(m['reward/story/entropy/mean']).toBeGreaterThan(0);
      expect(m['perf/signals_compute_s']).toBeGreaterThan(0);
    }
  }, 300_000);

  it('a story row without the prompt without r stops the job, naming the file, row and column', async () => {
    const events = await run('no-without', job('no-without.parquet', 'no-without'));
    expect(events.at(-1)).toMatchObject({ type: 'state', state: 'failed' });
    // The job's view keeps its error whichever event carried it.
    const view = (await (await fetch(`${trainer.baseUrl}/v1/jobs/no-without`)).json()) as { state: string; error: string | null };
    expect(view.state).toBe('failed');
    expect(view.error).toContain('no-without.parquet row 0: no "prompt_without_context"');
    expect(view.error).toContain('reward.signals: false');
  }, 120_000);
});
