// The trainer survives the bus: nats-server restarted in the middle of a job
// (same port, JetStream store kept on disk), and the generation service
// SIGKILLed while it generates a step's rollouts, then started again. Each
// interruption is synchronised on the request it must hit, seen on the bus by
// a plain subscription, never on time. Afterwards every step is present
// exactly once, every sample of every step was scored, and the policy worker
// applied exactly one update per step (the published weights are `v<steps>`:
// one optimizer step per update in this configuration).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { ErrorCode, requestJson } from '@rl/service-kit';
import { openWeightsStore } from '@rl/policy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { gateOnRequest, watchRequests } from './support/bus-spy.ts';
import { followJob, pauseProcessGroup, type ClusterJobEvent } from './support/cluster-jobs.ts';
import { connectTestClient } from './support/nats-client.ts';
import { ROOT, startService, type ServiceProcess } from './support/processes.ts';
import { startRestartableNatsServer, type RestartableNatsServer } from './support/restartable-nats.ts';

const TRAIN = join(ROOT, 'test/fixtures/verl/verl_arithmetic_sequence_train.parquet');
const BUCKET = `rl-bus-test-${process.pid}`;
const SEED = 3;
const SAMPLES_PER_STEP = 16; // 4 prompts x n=4
const GATE_TIMEOUT_MS = 120_000;

let nats: RestartableNatsServer;
let rules: ServiceProcess;
let generation: ServiceProcess;
let trainer: ServiceProcess;
let work: string;

const startGeneration = () => startService('generation', { NATS_URL: nats.url, POLICY_OBJECT_STORE: BUCKET, POLICY_OBJECT_NAME: 'actor' });

/** A tiny job whose one update per step is one optimizer step (mini-batch = the whole batch), so its weights version counts its updates. */
function jobConfig(dir: string, steps: number, rolloutTimeoutMs: number) {
  return {
    data: { train_files: TRAIN, default_data_source: 'arithmetic_sequence', train_batch_size: 4, max_prompt_length: 16, max_response_length: 8, seed: SEED },
    actor_rollout_ref: {
      model: { tokenizer: 'char', d_model: 16, n_layers: 1, n_heads: 2, d_ff: 32, seed: 1 },
      rollout: { n: 4 },
      actor: { optim: { lr: 0.01, weight_decay: 0 }, ppo_mini_batch_size: 4 },
    },
    algorithm: { adv_estimator: 'grpo' },
    trainer: { total_training_steps: steps, save_freq: 1, test_freq: -1, val_before_train: false, default_local_dir: dir, resume_mode: 'disable' },
    reward: { timeout_ms: 3_000, retries: 6, backoff_ms: 200, max_backoff_ms: 2_000 },
    rollout: { weights_bucket: BUCKET, weights_name: 'actor', timeout_ms: rolloutTimeoutMs },
  };
}

type Event = ClusterJobEvent;

async function submit(id: string, config: unknown): Promise<void> {
  const r = await fetch(`${trainer.baseUrl}/v1/jobs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id, config }),
  });
  expect(r.status, await r.clone().text()).toBe(201);
}

/** The rollout request of `step` (its sampling seed is data.seed + step). */
const rolloutOfStep = (step: number) => (body: unknown) => (body as { sampling?: { seed?: number } } | undefined)?.sampling?.seed === SEED + step;
/** An update request of step `step` or later. */
const updateFromStep = (step: number) => (body: unknown) => ((body as { step?: number } | undefined)?.step ?? 0) >= step;

/** Every step once, in order, each with all its samples scored and none failed; the same steps in metrics.jsonl. */
function expectEveryStepOnce(events: Event[], dir: string, steps: number): void {
  const final = events.at(-1)!;
  expect(final, JSON.stringify(final)).toMatchObject({ type: 'state', state: 'succeeded' });
  const all = Array.from({ length: steps }, (_, i) => i + 1);
  const metrics = events.filter((e) => e.type === 'step').map((e) => e.metrics!);
  expect(metrics.map((m) => m.step)).toEqual(all);
  for (const m of metrics) {
    expect(m['reward/arithmetic_sequence/count'], `step ${m.step}`).toBe(SAMPLES_PER_STEP);
    expect(m['reward/error_count'], `step ${m.step}`).toBe(0);
    expect(m['rollout/failed'], `step ${m.step}`).toBe(0);
  }
  const lines = readFileSync(join(dir, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { step: number });
  expect(lines.map((l) => l.step)).toEqual(all);
  expect(events.filter((e) => e.type === 'checkpoint').map((e) => e.step)).toEqual(all);
}

/** The version the policy worker last published: `v<optimizer steps>`. */
async function publishedVersion(): Promise<string | undefined> {
  const nc: NatsConnection = await connectTestClient(nats.url);
  try {
    const info = await (await openWeightsStore(nc, BUCKET)).info('actor');
    return info?.metadata?.version;
  } finally {
    await nc.close();
  }
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'rl-trainer-bus-'));
  nats = await startRestartableNatsServer();
  rules = await startService('reward-rules', { NATS_URL: nats.url, SCORE_WORKERS: '1' });
  generation = await startGeneration();
  trainer = await startService('trainer', { NATS_URL: nats.url, TRAINER_BASE_DIR: work });
}, 120_000);

afterAll(async () => {
  await Promise.all([trainer, generation, rules].map((s) => s?.stop()));
  await nats?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('the trainer survives the bus', () => {
  it('finishes a job across two nats-server restarts (mid-rollout and mid-update) with every step and sample once', async () => {
    const dir = join(work, 'restart');
    const steps = 5;
    const midRollout = await gateOnRequest(nats.url, 'rollout.generate', rolloutOfStep(2), GATE_TIMEOUT_MS);
    await submit('restart', jobConfig(dir, steps, 60_000));
    const done = followJob(trainer.baseUrl, 'restart');
    await midRollout.seen;
    // The trainer (and its policy worker) wait, stopped, until a spy on the restarted server is listening, so
    // no update it sends after the restart can pass before the spy: on a loaded host steps 3-5 once did.
    await pauseProcessGroup(trainer);
    await nats.restart();
    await midRollout.close();
    const midUpdate = await gateOnRequest(nats.url, 'policy.restart.update', updateFromStep(3), GATE_TIMEOUT_MS);
    process.kill(-trainer.proc.pid!, 'SIGCONT');
    await midUpdate.seen;
    await nats.restart();
    await midUpdate.close();
    const events = await done;
    expectEveryStepOnce(events, dir, steps);
    // One update applied per step: an update whose reply the restart lost was answered, not trained again.
    expect(await publishedVersion()).toBe(`v${steps}`);
  }, 240_000);

  it('retries the rollout of a step whose generation service was SIGKILLed mid-generation', async () => {
    const dir = join(work, 'generation-crash');
    const steps = 4;
    const firstUpdate = await gateOnRequest(nats.url, 'policy.generation-crash.update', updateFromStep(1), GATE_TIMEOUT_MS);
    const rollouts = await watchRequests(nats.url, 'rollout.generate');
    // A short rollout deadline: the lost request is noticed by its timeout (a NATS request cannot see its responder die).
    await submit('generation-crash', jobConfig(dir, steps, 10_000));
    const done = followJob(trainer.baseUrl, 'generation-crash');
    await firstUpdate.seen;
    await firstUpdate.close();
    // Stopped (SIGSTOP) after step 1's rollout, generation cannot answer any request the server routes from
    // then on: the first one (step 2's, unless a loaded host let step 2 finish first) is in its hands when it is killed.
    await pauseProcessGroup(generation);
    const held = (await rollouts.nextRouted(GATE_TIMEOUT_MS)) as { sampling?: { seed?: number } };
    const heldStep = (held.sampling?.seed ?? Number.NaN) - SEED;
    await generation.stop(); // SIGKILL of its process group
    await rollouts.close();
    generation = await startGeneration();
    const events = await done;
    expectEveryStepOnce(events, dir, steps);
    expect(heldStep).toBeGreaterThanOrEqual(2);
    const retries = events.filter((e) => e.type === 'log' && new RegExp(`retrying step ${heldStep}\\b`).test(e.message ?? ''));
    expect(retries.length, JSON.stringify(events.filter((e) => e.type === 'log'))).toBeGreaterThanOrEqual(1);
    expect(await publishedVersion()).toBe(`v${steps}`);
  }, 240_000);
});

/** Resolves once `nc` reports that it lost its server. */
async function disconnected(nc: NatsConnection): Promise<void> {
  for await (const s of nc.status()) if (s.type === 'disconnect') return;
}

// What the trainer's clients build on: shared's requestJson learns of a lost
// link at once instead of waiting out a deadline of minutes for a reply that
// cannot come. (A deadline of 120 s here: a `timeout` would mean it waited.)
describe('a request across a nats-server restart', () => {
  const SUBJECT = 'bus-test.never-answers';
  const request = (nc: NatsConnection) => requestJson(nc, SUBJECT, {}, { timeoutMs: 120_000, response: z.unknown() });

  it('fails with unavailable when the server dies while its reply is awaited', async () => {
    const responder = await connectTestClient(nats.url);
    const client = await connectTestClient(nats.url);
    try {
      const arrived = Promise.withResolvers<void>();
      responder.subscribe(SUBJECT, { callback: () => arrived.resolve() });
      await responder.flush();
      // The expectation is attached before the kill: the rejection may land while kill() still awaits the process's exit.
      const failed = expect(request(client)).rejects.toMatchObject({ code: ErrorCode.Unavailable, retryable: true });
      await arrived.promise;
      await nats.kill();
      await failed;
    } finally {
      await nats.restart();
      await Promise.all([responder.close(), client.close()]);
    }
  }, 60_000);

  it('fails with unavailable when it is sent while the server is down (the client drops it on reconnect)', async () => {
    const client = await connectTestClient(nats.url);
    try {
      const lost = disconnected(client);
      await nats.kill();
      await lost;
      await expect(request(client)).rejects.toMatchObject({ code: ErrorCode.Unavailable, retryable: true });
    } finally {
      await nats.restart();
      await client.close();
    }
  }, 60_000);
});
