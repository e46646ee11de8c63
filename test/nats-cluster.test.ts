// A GRPO job on a three-node NATS cluster survives losing a node. Every
// service has the full server list with its own node first: the trainer (and
// its policy worker) on one node, reward-sandbox on another, reward-rules and
// the generation service on the third, which is killed (SIGKILL) while a reward
// request of step 2 is in reward-rules' hands (the instance is held stopped
// from just before that request is routed to it until the trainer has sent its
// retry, so the request is lost with the node whatever the machine's load).
// The weights bucket is created with 3 replicas. Afterwards: every step and
// every sample is there once, the metrics equal those of the same job run
// before without a kill, the bucket serves the last weights version from the
// surviving nodes, and the restarted node rejoins (routes, JetStream peer).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isDeepStrictEqual } from 'node:util';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { fetchWeights, openWeightsStore } from '@rl/policy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gateOnRequest, watchRequests } from './support/bus-spy.ts';
import { connectTestClient } from './support/nats-client.ts';
import { startNatsCluster, waitFor, type NatsCluster } from './support/nats-cluster.ts';
import { startService, type ServiceProcess } from './support/processes.ts';
import { codeAndMathRows, followJob, pauseProcessGroup, streamInfo, writeMixedSplit, type ClusterJobEvent } from './support/cluster-jobs.ts';

const BUCKET = `rl-cluster-${process.pid}`;
const STREAM = `OBJ_${BUCKET}`;
const STEPS = 3;
const SEED = 5;
const GATE_TIMEOUT_MS = 20_000;
const ROWS = codeAndMathRows(8);
/** Per step: 2 prompts of each kind x n=4. */
const PER_SOURCE = 8;

let cluster: NatsCluster;
let work: string;
let services: ServiceProcess[] = [];
let rules: ServiceProcess;
let trainer: ServiceProcess;
/** Node indices: the trainer's, reward-sandbox's, and the one killed (reward-rules' and generation's). */
let home: { trainer: number; sandbox: number; killed: number };

function jobConfig(dir: string) {
  return {
    data: {
      train_files: join(work, 'mixed.parquet'),
      train_batch_size: 4,
      max_prompt_length: 48,
      max_response_length: 8,
      seed: SEED,
      shuffle: false,
    },
    actor_rollout_ref: {
      model: { tokenizer: 'byte', d_model: 16, n_layers: 1, n_heads: 2, d_ff: 32, seed: 1 },
      rollout: { n: 4 },
      actor: { optim: { lr: 0.01, weight_decay: 0 }, ppo_mini_batch_size: 4 },
    },
    algorithm: { adv_estimator: 'grpo' },
    trainer: { total_training_steps: STEPS, save_freq: -1, test_freq: -1, val_before_train: false, default_local_dir: dir, resume_mode: 'disable' },
    // A lost request is noticed by its deadline (a NATS request cannot see its responder's node die).
    reward: { timeout_ms: 2_000, retries: 8, backoff_ms: 100, max_backoff_ms: 1_000 },
    rollout: { weights_bucket: BUCKET, weights_name: 'actor', timeout_ms: 30_000 },
  };
}

/** Submits job `id`; `done` follows it to its end. */
async function submit(id: string): Promise<{ done: Promise<ClusterJobEvent[]> }> {
  const dir = join(work, id);
  const r = await fetch(`${trainer.baseUrl}/v1/jobs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id, config: jobConfig(dir) }),
    signal: AbortSignal.timeout(10_000),
  });
  expect(r.status, await r.clone().text()).toBe(201);
  return { done: followJob(trainer.baseUrl, id) };
}

/** Each metrics.jsonl line without what measures time or counts the bus's retries (and a retried step's reward-cache hits). */
function comparableMetrics(id: string): Array<Record<string, number>> {
  return readFileSync(join(work, id, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, number>)
    .map((m) => Object.fromEntries(Object.entries(m).filter(([k]) => !/^(timing|perf|time)|_s$|retries|requests|cache/.test(k))));
}

function expectEveryStepOnce(events: ClusterJobEvent[]): void {
  expect(events.at(-1), JSON.stringify(events.filter((e) => e.type !== 'step').slice(-5))).toMatchObject({ type: 'state', state: 'succeeded' });
  const steps = events.filter((e) => e.type === 'step').map((e) => e.metrics!);
  expect(steps.map((m) => m.step)).toEqual(Array.from({ length: STEPS }, (_, i) => i + 1));
  for (const m of steps) {
    expect(m['reward/openai/gsm8k/count'], `step ${m.step}`).toBe(PER_SOURCE);
    expect(m['reward/codecontests/count'], `step ${m.step}`).toBe(PER_SOURCE);
    expect(m['reward/error_count'], `step ${m.step}`).toBe(0);
    expect(m['rollout/failed'], `step ${m.step}`).toBe(0);
  }
}

async function withClient<T>(url: string, f: (nc: NatsConnection) => Promise<T>): Promise<T> {
  const nc = await connectTestClient(url);
  try {
    return await f(nc);
  } finally {
    await nc.close();
  }
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'rl-cluster-'));
  await writeMixedSplit(join(work, 'mixed.parquet'), ROWS);
  cluster = await startNatsCluster();
  // The killed node is not JetStream's metadata leader: this test is about clients and replicas, not about
  // nats-server's own leader election (which stalls stream and consumer creation for a few seconds).
  const killed = cluster.nodes.findIndex((n) => n.name !== cluster.metaLeader);
  const others = [0, 1, 2].filter((i) => i !== killed);
  home = { killed, trainer: others[0]!, sandbox: others[1]! };
  const url = (i: number) => cluster.urlFor(i);
  [rules, ...services] = await Promise.all([
    startService('reward-rules', { NATS_URL: url(home.killed), SCORE_WORKERS: '1' }),
    startService('reward-sandbox', { NATS_URL: url(home.sandbox) }),
    startService('generation', { NATS_URL: url(home.killed), NATS_JS_REPLICAS: '3', POLICY_OBJECT_STORE: BUCKET, POLICY_OBJECT_NAME: 'actor' }),
  ]);
  trainer = await startService('trainer', { NATS_URL: url(home.trainer), NATS_JS_REPLICAS: '3', TRAINER_BASE_DIR: work });
  // Generation created the bucket. Its stream leader is moved off the node to be killed, for the reason above.
  await withClient(cluster.nodes[home.trainer]!.url, async (nc) => {
    const killedName = cluster.nodes[home.killed]!.name;
    const leader = async () => (await streamInfo(nc, STREAM)).cluster?.leader;
    if ((await leader()) === killedName) {
      await nc.request(`$JS.API.STREAM.LEADER.STEPDOWN.${STREAM}`, undefined, { timeout: 10_000 });
      await waitFor(async () => ![undefined, killedName].includes(await leader()), 20_000, 'a new stream leader');
    }
  });
}, 120_000);

afterAll(async () => {
  await Promise.all([trainer, rules, ...services].map((s) => s?.stop()));
  await cluster?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('a GRPO job on a three-node NATS cluster', () => {
  it('keeps the weights bucket on all three nodes', async () => {
    const info = await withClient(cluster.nodes[home.trainer]!.url, (nc) => streamInfo(nc, STREAM));
    expect(info.config.num_replicas).toBe(3);
    expect([info.cluster?.leader, ...(info.cluster?.replicas ?? []).map((r) => r.name)].sort()).toEqual(['n0', 'n1', 'n2']);
  });

  it('survives SIGKILL of the node under reward-rules and generation mid-step, with the same metrics as without it', async () => {
    expectEveryStepOnce(await (await submit('calm')).done);

    const firstUpdate = await gateOnRequest(
      cluster.nodes[home.trainer]!.url,
      'policy.kill.update',
      (b) => (b as { step?: number }).step === 1,
      GATE_TIMEOUT_MS,
    );
    const spy = await watchRequests(cluster.nodes[home.trainer]!.url, 'reward.rules.score');
    const { done } = await submit('kill');
    await firstUpdate.seen;
    await firstUpdate.close();
    // Step 1's rewards are in; step 2's first reward-rules request goes to a stopped instance.
    await pauseProcessGroup(rules);
    const held = await spy.nextRouted(GATE_TIMEOUT_MS);
    await spy.close();
    const again = await gateOnRequest(cluster.nodes[home.trainer]!.url, 'reward.rules.score', (b) => isDeepStrictEqual(b, held), GATE_TIMEOUT_MS);
    await cluster.nodes[home.killed]!.kill();
    // The bucket still answers for the weights the step runs on, from the two nodes left.
    const survivor = cluster.nodes[home.sandbox]!.url;
    const during = await withClient(survivor, async (nc) => (await openWeightsStore(nc, BUCKET)).info('actor'));
    expect(during?.metadata?.version).toBe('v1');
    // The held request is lost with the node: the trainer times out and sends it again, unchanged.
    await again.seen;
    await again.close();
    process.kill(-rules.proc.pid!, 'SIGCONT');
    // And serves the weights themselves. Reading makes a consumer, which the cluster may place on the dead
    // node until it has marked that node offline (~10 s): reads are retried meanwhile.
    let read: string | undefined;
    await withClient(survivor, (nc) =>
      waitFor(
        async () => {
          read = (await fetchWeights(await openWeightsStore(nc, BUCKET), 'actor'))?.version;
          return true;
        },
        30_000,
        'the weights from the nodes left',
      ),
    );
    expect(read).toMatch(/^v[1-3]$/);
    const events = await done;

    expectEveryStepOnce(events);
    // Same samples, same scores, same updates: what the kill cost shows only in timings and the bus's retries.
    const calm = comparableMetrics('calm');
    expect(Object.keys(calm[0]!)).toEqual(
      expect.arrayContaining(['critic/score/mean', 'reward/openai/gsm8k/count', 'response_length/mean', 'actor/pg_loss', 'actor/grad_norm']),
    );
    expect(comparableMetrics('kill')).toEqual(calm);
    const after = await withClient(cluster.nodes[home.sandbox]!.url, async (nc) => (await openWeightsStore(nc, BUCKET)).info('actor'));
    expect(after?.metadata?.version).toBe(`v${STEPS}`);
    // reward-rules and generation moved to the nodes left.
    const conns = await Promise.all(
      [home.trainer, home.sandbox].map(
        async (i) => ((await (await fetch(`${cluster.nodes[i]!.monitorUrl}/connz`)).json()) as { connections: Array<{ name?: string }> }).connections,
      ),
    );
    const names = conns.flat().map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(['reward-rules', 'generation']));
  }, 120_000);

  it('takes the restarted node back: routes to both peers, and its replica of the bucket catches up', async () => {
    const node = cluster.nodes[home.killed]!;
    await node.start();
    await waitFor(async () => ((await (await fetch(`${node.monitorUrl}/routez`)).json()) as { num_routes: number }).num_routes === 2, 20_000, 'two routes');
    await withClient(node.url, async (nc) => {
      await waitFor(
        async () => {
          const c = (await streamInfo(nc, STREAM)).cluster;
          return c?.leader === node.name || (c?.replicas ?? []).some((r) => r.name === node.name && r.current);
        },
        30_000,
        `${node.name} current in ${STREAM}`,
      );
      // Read through the restarted node.
      expect((await fetchWeights(await openWeightsStore(nc, BUCKET), 'actor'))?.version).toBe(`v${STEPS}`);
    });
  }, 60_000);
});
